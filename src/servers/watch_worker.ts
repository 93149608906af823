/// <reference lib="deno.worker" />
// Runs Deno.watchFs for watcher.ts in a Worker of its own (started through worker_entry.ts), with
// read access to the root (and the barrier folder) only: once any process opens a FIFO in the
// workspace, Deno's watcher thread blocks opening it too, and closing such a watcher blocks the
// thread that closes it. Here that thread is one lspgate can abandon (terminate) instead of its
// main thread.
import type { FileChange } from "./watcher.ts";
import { isWatched } from "./watched.ts";
import type { FromWatcher, ToWatcher } from "./watch_protocol.ts";

const DEBOUNCE_MS = 50;

let pending = new Map<string, FileChange["type"]>();
let timer: ReturnType<typeof setTimeout> | undefined;

function post(message: FromWatcher) {
  self.postMessage(message);
}

function flush() {
  clearTimeout(timer);
  timer = undefined;
  const changes = [...pending].map(([path, type]) => ({ path, type }));
  pending = new Map();
  if (changes.length) post({ type: "changes", changes });
}

async function watch(root: string, barrier: string | undefined) {
  let watcher: Deno.FsWatcher;
  try {
    watcher = Deno.watchFs(barrier ? [root, barrier] : [root], { recursive: true });
  } catch (error) {
    post({ type: "failed", message: String(error) });
    return;
  }
  // The watches are in place once watchFs returns: a barrier written from now on is seen.
  post({ type: "watching" });
  const inBarrier = (path: string) => barrier !== undefined && path.startsWith(barrier + "/");
  try {
    for await (const event of watcher) {
      // The kernel's queue overflowed (inotify's IN_Q_OVERFLOW): changes were lost.
      if (event.flag === "rescan") {
        flush();
        post({ type: "rescan" });
        continue;
      }
      if (event.kind === "access" || event.kind === "other") continue;
      const type = event.kind === "create" ? 1 : event.kind === "remove" ? 3 : 2;
      for (const [index, path] of event.paths.entries()) {
        if (inBarrier(path)) {
          // Every event the kernel queued before this barrier file was created has been read.
          const id = Number(path.slice(barrier!.length + 2));
          if (event.kind === "create" && Number.isInteger(id)) {
            flush();
            post({ type: "flushed", id });
          }
          continue;
        }
        if (!isWatched(root, path)) continue;
        // A rename reports the old path, then the new one.
        const kind = event.kind === "rename" ? (index === 0 ? 3 : 1) : type;
        pending.set(path, pending.get(path) === 1 && kind === 2 ? 1 : kind);
      }
      timer ??= setTimeout(flush, DEBOUNCE_MS);
    }
  } catch {
    // The root went away: nothing more to watch.
  }
  post({ type: "failed", message: "the watcher stopped" });
}

// One channel for every turn: a new MessageChannel per flush is garbage the isolate must collect.
const turns = new MessageChannel();
const turnWaiters: (() => void)[] = [];
turns.port1.onmessage = () => turnWaiters.shift()?.();

/**
 * One turn of this Worker's event loop (cheaper than a timer, which waits for the next timer
 * tick): watcher events already handed to Deno come in before it ends.
 */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    turnWaiters.push(resolve);
    turns.port2.postMessage(null);
  });
}

/** Serves the workspace watcher to the thread that started this Worker (see watcher.ts). */
export function serveWatchWorker(): void {
  self.onmessage = async (event: MessageEvent<ToWatcher>) => {
    const message = event.data;
    if (message.type === "start") {
      watch(message.root, message.barrier);
    } else {
      // Without a barrier folder: what the watcher has already read comes first.
      await nextTurn();
      flush();
      post({ type: "flushed", id: message.id });
    }
  };
}
