/**
 * lspgate: language-server code intelligence (definition, references, hover, diagnostics, calls,
 * safe renames) for AI coding agents, as one `lsp` tool that never leaves the workspace.
 *
 * As a library: `Session.open({...})`, then `session.handle({action: "definition", ...})`.
 * As a program: `deno run <permissions> mod.ts [flags]` speaks JSON lines on stdin/stdout.
 * @module
 */
export { Session } from "./src/session.ts";
export type { Response, SessionOptions } from "./src/session.ts";
export { ADAPTERS } from "./adapters/mod.ts";
export type { Adapter } from "./src/servers/adapter.ts";
export { defaultConfig, loadConfig } from "./src/config.ts";
export type { LspGateConfig } from "./src/config.ts";
export { ERROR_CODES, LspGateError } from "./src/errors.ts";
export type { ErrorCode } from "./src/errors.ts";
export { ACTIONS } from "./src/actions/table.ts";
export { main } from "./src/frontends/main.ts";
export { VERSION } from "./src/version.ts";

import { main } from "./src/frontends/main.ts";
import { inWorker, serveWorker } from "./src/worker_entry.ts";

if (inWorker()) {
  // Only in a `deno bundle` artifact: the bundle is also the entry point of lspgate's Workers.
  serveWorker();
} else if (import.meta.main) {
  // Exit explicitly: a thread stuck in the OS (a watcher blocked on a FIFO) must not keep us.
  Deno.exit(await main(Deno.args));
}
