// The watching for watcher.ts, spoken to in messages (watch_protocol.ts): Deno.watchFs in a Worker
// of its own (watch_worker.ts) or on the thread of a process whose one session lasts its whole
// life; or, on any thread, the events of lspgate's own watcher process (inotify_watch.ts).
//
// Rationale: once any process opens a FIFO in the workspace, Deno's watcher thread blocks opening
// it too, and closing such a watcher blocks the thread that closes it. A Worker is a thread
// lspgate can abandon (terminate); on the main thread the watcher is abandoned instead of closed
// (never closed: the process ends it), which only a process that exits with its session may do.
import { isReported } from "./watched.ts";
import type { FileChange, FromWatcher, ToWatcher, WatchEventSource } from "./watch_protocol.ts";

const DEBOUNCE_MS = 50;

/** The id of a barrier file's name (`b` and a number), else undefined. */
function barrierId(name: string): number | undefined {
  const match = /^b(\d+)$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** A running watch service: hand it messages; abandon() silences it for good without closing. */
export interface WatchService {
  receive(message: ToWatcher): void;
  abandon(): void;
}

/**
 * Starts a watch service that answers through `post`: it reads `process`'s events where given (a
 * watcher process already watching), else watches with Deno.watchFs.
 */
export function watchService(
  post: (message: FromWatcher) => void,
  process?: WatchEventSource,
): WatchService {
  let pending = new Map<string, FileChange["type"]>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let abandoned = false;
  const say = (message: FromWatcher) => {
    if (!abandoned) post(message);
  };

  function flush() {
    // Only when set: a barrier's event flushes too, and Deno's timers load at their first use.
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const changes = [...pending].map(([path, type]) => ({ path, type }));
    pending = new Map();
    if (changes.length) say({ type: "changes", changes });
  }

  function onEvent(
    root: string,
    barrier: string | undefined,
    event: { kind: string; paths: string[]; flag?: string },
  ) {
    // The kernel's queue overflowed (inotify's IN_Q_OVERFLOW): changes were lost.
    if (event.flag === "rescan") {
      flush();
      say({ type: "rescan" });
      return;
    }
    if (event.kind === "access" || event.kind === "other") return;
    const inBarrier = (path: string) => barrier !== undefined && path.startsWith(barrier + "/");
    const type = event.kind === "create" ? 1 : event.kind === "remove" ? 3 : 2;
    for (const [index, path] of event.paths.entries()) {
      if (inBarrier(path)) {
        // Every event the kernel queued before this barrier file was created (`b<id>`), or
        // before the tick (`b0`) was written, has been read.
        const id = barrierId(path.slice(barrier!.length + 1));
        if (id !== undefined && event.kind === (id === 0 ? "modify" : "create")) {
          flush();
          say({ type: "flushed", id });
        }
        continue;
      }
      if (!isReported(root, path)) continue;
      // A rename reports the old path, then the new one.
      const kind = event.kind === "rename" ? (index === 0 ? 3 : 1) : type;
      pending.set(path, pending.get(path) === 1 && kind === 2 ? 1 : kind);
    }
    if (pending.size) timer ??= setTimeout(flush, DEBOUNCE_MS);
  }

  async function watch(root: string, barrier: string | undefined) {
    if (process) {
      say({ type: "watching" });
      for await (const event of process.events) {
        if (abandoned) return;
        if (event.kind === "failed") {
          say({
            type: "failed",
            message: event.message ?? "the watcher process stopped",
            ...(event.ended ? { ended: true } : {}),
          });
          return;
        }
        onEvent(root, barrier, event);
      }
      say({ type: "failed", message: "the watcher process ended", ended: true });
      return;
    }
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs(barrier ? [root, barrier] : [root], { recursive: true });
    } catch (error) {
      say({ type: "failed", message: String(error) });
      return;
    }
    // The watches are in place once watchFs returns: a barrier written from now on is seen.
    say({ type: "watching" });
    try {
      for await (const event of watcher) {
        if (abandoned) return;
        onEvent(root, barrier, event);
      }
    } catch {
      // The root went away: nothing more to watch.
    }
    say({ type: "failed", message: "the watcher stopped" });
  }

  // One channel for every turn: a new MessageChannel per flush is garbage the isolate must collect.
  let turns: MessageChannel | undefined;
  const turnWaiters: (() => void)[] = [];
  /**
   * One turn of this thread's event loop (cheaper than a timer, which waits for the next timer
   * tick): watcher events already handed to Deno come in before it ends.
   */
  function nextTurn(): Promise<void> {
    if (!turns) {
      turns = new MessageChannel();
      turns.port1.onmessage = () => turnWaiters.shift()?.();
    }
    return new Promise((resolve) => {
      turnWaiters.push(resolve);
      turns!.port2.postMessage(null);
    });
  }

  return {
    receive(message) {
      if (message.type === "start") {
        watch(message.root, message.barrier);
        return;
      }
      // Without a barrier folder: what the watcher has already read comes first.
      nextTurn().then(() => {
        flush();
        say({ type: "flushed", id: message.id });
      });
    },
    abandon() {
      abandoned = true;
      process?.stop();
      clearTimeout(timer);
      // Open ports would keep the event loop of a process that is otherwise done.
      turns?.port1.close();
      turns?.port2.close();
    },
  };
}
