// The initialize handshake's data: what lspgate tells a server of itself and the project, and
// what it keeps of the server's answer.
import type * as proto from "vscode-languageserver-protocol";
import { CLIENT_CAPABILITIES } from "./capabilities.ts";
import { type NegotiatedEncoding, negotiatedEncoding } from "./positions.ts";
import { baseName } from "./client_util.ts";
import type { ClientOptions } from "./client_types.ts";

/** The `initialize` params for a server started with `options`. */
export function initializeParams(options: ClientOptions): proto.InitializeParams {
  return {
    processId: options.hideProcessId ? null : Deno.pid,
    clientInfo: { name: "lspgate", version: "0.1.0" },
    rootUri: options.rootUri,
    rootPath: options.root,
    workspaceFolders: [{ uri: options.rootUri, name: baseName(options.root) }],
    capabilities: { ...CLIENT_CAPABILITIES, ...options.extraCapabilities },
    initializationOptions: options.initializationOptions,
  };
}

/** What the client keeps of the `initialize` answer: capabilities, encoding, version. */
export function initializeAnswer(result: proto.InitializeResult | null | undefined): {
  capabilities: proto.ServerCapabilities;
  encoding: NegotiatedEncoding;
  serverVersion?: string;
} {
  const capabilities = result?.capabilities ?? {};
  return {
    capabilities,
    // clangd before 16 negotiates through its own `offsetEncoding` instead of positionEncoding.
    encoding: negotiatedEncoding(
      capabilities.positionEncoding ?? (result as { offsetEncoding?: unknown })?.offsetEncoding,
    ),
    serverVersion: result?.serverInfo?.version,
  };
}
