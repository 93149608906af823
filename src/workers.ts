// Which Worker is which, and the module they start from: here rather than in the program's entry
// (src/worker_entry.ts), so src/lsp/ and src/servers/ start Workers without importing it.

/** Name prefixes that tell a Worker what to serve. */
export const WORKER_NAMES = {
  client: "lspgate client",
  watcher: "lspgate watcher",
  syntax: "lspgate syntax",
} as const;

/** True when this code runs inside a Worker rather than as the main program. */
export function inWorker(): boolean {
  const scope = (globalThis as { WorkerGlobalScope?: new () => unknown }).WorkerGlobalScope;
  return scope !== undefined && globalThis instanceof scope;
}

/**
 * The module to start Workers from: src/worker_entry.ts when running from source, the bundle
 * itself when running as one bundled file (where every module shares the bundle's URL).
 */
export function workerUrl(): URL {
  const here = new URL(import.meta.url);
  return here.pathname.endsWith("/src/workers.ts") ? new URL("./worker_entry.ts", here) : here;
}

/** A Worker's Deno permissions when it may read `paths` and nothing else (no write, net, run…). */
export function readingOnly(paths: (string | URL)[]) {
  return {
    read: paths,
    write: false,
    net: false,
    env: false,
    run: false,
    ffi: false,
    sys: false,
    import: false,
  } as const;
}
