// Server-specific code the LSP client runs by name. An adapter names a hook in its data; the name
// travels in ClientOptions to the client, in its Worker (postMessage carries no functions), and the
// client finds the code here.
//
// Rationale: this module, not adapters/mod.ts, is what src/lsp/ imports, so a client's Worker loads
// the hooks alone and none of the adapters' binary lookup.
import type { DiagnosticsHook } from "../src/lsp/diagnostics_hook.ts";
import { goplsDiagnostics } from "./gopls_diagnostics.ts";
import { tsserverDiagnostics } from "./typescript_diagnostics.ts";

/** Diagnostics hooks by the name an adapter gives in `diagnosticsHook`. */
export const DIAGNOSTICS_HOOKS: Readonly<Record<string, DiagnosticsHook>> = {
  tsserver: tsserverDiagnostics,
  gopls: goplsDiagnostics,
};
