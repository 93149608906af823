/**
 * lspgate: language-server code intelligence (definition, references, hover, diagnostics, calls,
 * safe renames) for AI coding agents, as one `lsp` tool that never leaves the workspace.
 *
 * As a library: `Session.open({...})`, then `session.handle({action: "definition", ...})`.
 * As a program: `deno run <permissions> mod.ts [flags]` speaks JSON lines on stdin/stdout.
 * @module
 */
import { main } from "./src/frontends/main.ts";
import { inWorker, serveWorker } from "./src/worker_entry.ts";

export type { Response, SessionOptions } from "./src/session.ts";
export type { Adapter } from "./src/servers/adapter.ts";
export type { LspGateConfig } from "./src/config_schema.ts";
export { ERROR_CODES, LspGateError } from "./src/errors.ts";
export type { ErrorCode } from "./src/errors.ts";
export { main } from "./src/frontends/main.ts";
export { VERSION } from "./src/version.ts";

if (inWorker()) {
  // Only in a `deno bundle` artifact: the bundle is also the entry point of lspgate's Workers.
  serveWorker();
} else if (import.meta.main) {
  // Exit explicitly: a thread stuck in the OS (a watcher blocked on a FIFO) must not keep us.
  Deno.exit(await main(Deno.args, { ownsProcess: true }));
}

// The library's sessions, adapters, config and actions load here, when mod.ts is imported as a
// library, and not above: the program loads them only when it serves in its own process, so a
// client of the warm daemon starts at a fraction of lspgate's size.
const library = inWorker()
  ? undefined as unknown as typeof import("./src/library.ts")
  : await import("./src/library.ts");
/** A workspace's session: `Session.open({...})`, then `handle(request)` (see src/session.ts). */
export const Session = library?.Session;
export type Session = import("./src/session.ts").Session;
/** The language servers lspgate ships adapters for. */
export const ADAPTERS = library?.ADAPTERS;
/** The config when no file sets anything. */
export const defaultConfig = library?.defaultConfig;
/** Reads and validates a config file (JSONC). */
export const loadConfig = library?.loadConfig;
/** Every action of the `lsp` tool, with its request schema. */
export const ACTIONS = library?.ACTIONS;
