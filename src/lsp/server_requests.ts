// What lspgate answers a server's own requests (the client side of LSP): its settings, its
// workspace folder, capability registrations; never an edit or a document shown, and
// MethodNotFound for the rest.
import type * as proto from "vscode-languageserver-protocol";
import { ResponseError } from "../jsonrpc/mod.ts";
import type { ClientOptions } from "./client_types.ts";
import { baseName, lookupSection } from "./client_util.ts";

/** What the answers need of the client. */
export interface ServerRequestHost {
  options: ClientOptions;
  /** The server asked for its configuration (and was answered). */
  configured(): void;
  /** A capability registered (with what) or unregistered (undefined). */
  register(id: string, registration?: { method: string; options: unknown }): void;
}

/** The answer to one request from the server; throws a ResponseError for one it does not handle. */
export function answerServerRequest(
  method: string,
  params: unknown,
  host: ServerRequestHost,
): unknown {
  const options = host.options;
  switch (method) {
    case "workspace/configuration": {
      const items = (params as proto.ConfigurationParams)?.items ?? [];
      host.configured();
      return items.map((item) => lookupSection(options.settings ?? {}, item.section));
    }
    case "window/workDoneProgress/create":
    case "workspace/diagnostic/refresh":
    case "workspace/semanticTokens/refresh":
    case "workspace/inlayHint/refresh":
    case "workspace/inlineValue/refresh":
    case "workspace/codeLens/refresh":
    case "workspace/foldingRange/refresh":
    case "window/showMessageRequest":
      return null;
    case "client/registerCapability": {
      for (const r of (params as proto.RegistrationParams)?.registrations ?? []) {
        host.register(r.id, { method: r.method, options: r.registerOptions });
      }
      return null;
    }
    case "client/unregisterCapability": {
      // The protocol spells this field "unregisterations".
      for (const r of (params as proto.UnregistrationParams)?.unregisterations ?? []) {
        host.register(r.id);
      }
      return null;
    }
    case "workspace/workspaceFolders":
      return [{ uri: options.rootUri, name: baseName(options.root) }];
    case "workspace/applyEdit":
      // Edits are applied by lspgate itself, after its boundary checks, never on a server's say.
      return { applied: false, failureReason: "lspgate applies edits itself" };
    case "window/showDocument":
      return { success: false };
    default:
      throw new ResponseError(-32601, `lspgate does not handle ${method}`);
  }
}
