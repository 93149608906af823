/// <reference lib="deno.worker" />
// Runs Deno.watchFs for watcher.ts in a Worker of its own (started through worker_entry.ts) (read access to the root only): once
// any process opens a FIFO in the workspace, Deno's watcher thread blocks opening it too, and
// closing such a watcher blocks the thread that closes it. Here that thread is one lspgate can
// abandon (terminate) instead of its main thread.
import { DEFAULT_SKIPPED_FOLDERS } from "../permissions/walk.ts";
import type { FileChange } from "./watcher.ts";

const DEBOUNCE_MS = 50;

let pending = new Map<string, FileChange["type"]>();
let timer: ReturnType<typeof setTimeout> | undefined;

function flush() {
  clearTimeout(timer);
  timer = undefined;
  const changes = [...pending].map(([path, type]) => ({ path, type }));
  pending = new Map();
  if (changes.length) self.postMessage({ type: "changes", changes });
}

async function watch(root: string) {
  let watcher: Deno.FsWatcher;
  try {
    watcher = Deno.watchFs(root, { recursive: true });
  } catch (error) {
    self.postMessage({ type: "failed", message: String(error) });
    return;
  }
  const ignored = (path: string) =>
    path.slice(root.length).split("/").some((part) => DEFAULT_SKIPPED_FOLDERS.has(part));
  try {
    for await (const event of watcher) {
      if (event.kind === "access" || event.kind === "other") continue;
      const type = event.kind === "create" ? 1 : event.kind === "remove" ? 3 : 2;
      for (const [index, path] of event.paths.entries()) {
        if (ignored(path)) continue;
        // A rename reports the old path, then the new one.
        const kind = event.kind === "rename" ? (index === 0 ? 3 : 1) : type;
        pending.set(path, pending.get(path) === 1 && kind === 2 ? 1 : kind);
      }
      timer ??= setTimeout(flush, DEBOUNCE_MS);
    }
  } catch {
    // The root went away: nothing more to watch.
  }
}

/** Serves the workspace watcher to the thread that started this Worker (see watcher.ts). */
export function serveWatchWorker(): void {
  self.onmessage = (
    event: MessageEvent<{ type: "start"; root: string } | { type: "flush"; id: number }>,
  ) => {
    const message = event.data;
    if (message.type === "start") watch(message.root);
    else {
      // Events already read from the kernel but not yet handed to this loop come first.
      setTimeout(() => {
        flush();
        self.postMessage({ type: "flushed", id: message.id });
      }, 0);
    }
  };
}
