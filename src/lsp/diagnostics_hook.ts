import type * as proto from "vscode-languageserver-protocol";
import type { ClientOptions } from "./client.ts";

/** What a diagnostics hook works with: one open document and a way to ask its server. */
export interface DiagnosticsHookContext {
  /** The document's URI, as lspgate opened it. */
  uri: string;
  /** The client's options: the settings and initialization options the server was given. */
  options: ClientOptions;
  /** The capabilities the server announced (and so the commands it offers). */
  serverCapabilities: proto.ServerCapabilities;
  /** The capabilities lspgate announced to the server (what it formats its pushes for). */
  clientCapabilities: proto.ClientCapabilities;
  /** The document's text as the server has it, where known. */
  text?: string;
  /** Sends a request to the server, within the diagnostics call's timeout and cancel signal. */
  request<R = unknown>(method: string, params: unknown): Promise<R>;
}

/**
 * A server's own way to answer a document's diagnostics at once, for a server whose pushes are
 * late or missing (see ClientOptions.diagnosticsHook). Resolves with the diagnostics as the server
 * would push them for the text it has now, `{ unchecked }` where the server does not check the
 * document (why, in words: its build leaves the file out), or undefined where the way is not open
 * (the client then waits for a push); a failed request rejects as the request did.
 *
 * Architecture Invariant: names cross the Worker boundary, functions cannot; a hook is named in
 * the adapter's data and found in adapters/hooks.ts, which loads only the hooks themselves.
 */
export type DiagnosticsHook<T = proto.Diagnostic[] | { unchecked: string }> = (
  context: DiagnosticsHookContext,
) => Promise<T | undefined>;
