import { join } from "../posix_path.ts";
import { boundDelay } from "../lsp/client_util.ts";
import { deadlines } from "../deadlines.ts";
import type { FileChange, FromWatcher, ToWatcher } from "./watch_protocol.ts";
import {
  barrierFolder,
  linkOutOfRoot,
  openTick,
  smallTree,
  startWorker,
  TICK_ID,
} from "./watch_places.ts";
export { IN_THREAD_MAX } from "./watch_places.ts";
export type { FileChange } from "./watch_protocol.ts";
import type { ChangeTracking, WatchOptions, WorkspaceWatcher } from "./watcher_types.ts";
export type { ChangeTracking, WatchOptions, WorkspaceWatcher } from "./watcher_types.ts";
import { isRealFolder, withNewFolders } from "./new_folders.ts";
import { type WatchService, watchService } from "./watch_service.ts";
import type { InotifyProcess } from "./inotify_process.ts";

/** How long a flush waits for the watcher before going on without it. */
const FLUSH_WAIT_MS = 200;
/** Why a flush's bound is lifted: it came (an abort's reason, see bounded()). */
const SETTLED = "settled";
/** Barriers missed in a row after which the watcher is given up (see missedBarrier). */
const MAX_MISSED = 3;
/** How many times a watcher process that ended (killed, say) is started again. */
const MAX_RESTARTS = 3;
const TICK_BYTE = new Uint8Array([0x2e]);

/**
 * Watches the workspace so servers hear about files other tools change (for files they do not
 * have open; open ones are checked before every query). Heavy folders are ignored. The watching
 * runs in a Worker allowed to read the root and nothing else, or on this thread with `inThread`
 * (see watch_service.ts for when). A watcher that cannot start is reported and skipped.
 *
 * Architecture Invariant: a flush is a barrier where lspgate may write a private folder (the
 * daemon's, or the temp folder): it creates a file there, watched by the same watcher, and waits
 * for that file's event; the kernel queues events in order, so every change made before the flush
 * has been read by then. Without such a folder (`deno task start` grants no write) a flush
 * delivers what the watcher has read so far, one turn of its event loop after the request.
 */
export function watchWorkspace(
  root: string,
  onChanges: (changes: FileChange[]) => Promise<void>,
  options: WatchOptions = {},
): WorkspaceWatcher {
  let worker: Worker | undefined;
  let service: WatchService | undefined;
  let watcherProcess: InotifyProcess | undefined;
  let barrier: string | undefined;
  let delivering: Promise<void> = Promise.resolve();
  let reports = 0;
  let undelivered = 0;
  let nextFlush = 1;
  let state: "starting" | "watching" | "failed" | "stopped" = "starting";
  let lost = false;
  /** A flush gave up waiting for the watches to be set (a busy or slow-starting Worker). */
  let unguarded = false;
  /** Barriers in a row the watcher did not report in time. */
  let missed = 0;
  /** Rounds waited for (see bounded()). */
  let roundsWaited = 0;
  /** The tick file, open for writing while it can be written. */
  let tick: Deno.FsFile | undefined;
  /** A write of the tick whose event has not come back yet. */
  let tickPending = false;
  /** Watcher processes started again after one ended. */
  let restarts = 0;
  const flushed = new Map<number, () => void>();
  let onWatching: () => void = () => {};
  const watching = new Promise<void>((resolve) => onWatching = resolve);

  /** Folders created since the last flush, listed again by it (Deno's watcher, see below). */
  const newFolders = new Set<string>();
  const onMessage = (message: FromWatcher) => {
    if (message.type === "changes") {
      // Deno's watcher sets a created folder's watch after the fact: files written into it
      // meanwhile are never reported (a reviewer's find: a Go package made with mkdir and a
      // write stayed unseen, 5 runs of 6). Its files found now are reported created; lspgate's
      // watcher process lists new folders itself.
      const changes = watcherProcess
        ? message.changes
        : withNewFolders(message.changes, newFolders);
      reports++;
      undelivered++;
      delivering = delivering.then(() => onChanges(changes)).catch(() => {}).finally(() =>
        undelivered--
      );
    } else if (message.type === "flushed") {
      if (message.id === TICK_ID) tickPending = false;
      const waiting = flushed.get(message.id);
      // A barrier reported after its flush gave up: the watcher is slow, not stalled.
      if (waiting) waiting();
      else missed = 0;
    } else if (message.type === "watching") {
      if (state === "starting") {
        state = "watching";
        if (unguarded) {
          // A query went on before the watches were in place: what changed before now was not
          // seen, so nothing remembered as unchanged may be trusted.
          reports++;
          options.onLost?.();
        }
      }
      onWatching();
    } else if (message.type === "rescan") {
      reports++;
      lost = true;
      options.onLost?.();
    } else if (message.type === "failed") {
      if (message.ended && state === "watching" && restarts < MAX_RESTARTS) {
        restart();
        return;
      }
      if (state !== "stopped") {
        console.error(`lspgate: not watching ${root} for changes: ${message.message}`);
        state = "failed";
      }
      onWatching();
      for (const resolve of flushed.values()) resolve();
    }
  };

  try {
    barrier = barrierFolder(root);
    if (barrier) tick = openTick(barrier);
    if (!options.inThread) beginElsewhere();
    else {
      // Deno.watchFs walks the whole tree before it returns: on this thread only for a tree small
      // enough not to hold requests back; a larger one is watched elsewhere.
      if (smallTree(root)) begin(() => service = watchService(onMessage));
      else beginElsewhere();
    }
  } catch (error) {
    onMessage({ type: "failed", message: String(error) });
  }

  /**
   * The watcher process ended under a watching session (the OOM killer, a kill): what changed
   * since is unknown, so nothing remembered is trusted and tracking is best effort from then on,
   * but changes are followed again by a new one rather than not at all.
   */
  function restart() {
    restarts++;
    console.error(`lspgate: the watcher process for ${root} ended; starting another`);
    service?.abandon();
    service = undefined;
    watcherProcess = undefined;
    lost = true;
    reports++;
    options.onLost?.();
    tickPending = false;
    for (const resolve of flushed.values()) resolve();
    state = "starting";
    beginElsewhere();
  }

  function begin(start: () => void) {
    try {
      start();
      post({ type: "start", root, barrier });
    } catch (error) {
      onMessage({ type: "failed", message: String(error) });
    }
  }

  /**
   * lspgate's watcher process where it starts: Deno.watchFs's mask has IN_OPEN, so every file a
   * server opens costs this process a wake-up (pyright, ~60 a references question), and its thread
   * stalls on a FIFO; the process sees changes only, opens nothing, and a stop ends it. ~11 MiB of
   * its own against a Worker's ~15.6 (README, Performance). Else a Worker.
   */
  async function beginElsewhere() {
    let started: InotifyProcess | undefined;
    try {
      // Loaded here: a session watching on its own thread never needs it (nor what it loads).
      if (options.process !== false) {
        started = await (await import("./inotify_process.ts")).startInotify(root, barrier);
      }
    } catch {
      // It could not start: the Worker watches instead.
    }
    // Deno.watchFs follows links: one to `/` would have the Worker list and watch the whole disk.
    const out = started ? undefined : await linkOutOfRoot(root);
    if (state === "stopped") return started?.stop();
    if (started) {
      watcherProcess = started;
      begin(() => service = watchService(onMessage, started));
      return;
    }
    if (out !== undefined) {
      onMessage({
        type: "failed",
        message: `${out} is a link to a folder outside the root, which Deno's watcher would ` +
          "follow, and lspgate's own watcher process could not start here",
      });
      return;
    }
    begin(() => worker = startWorker(root, barrier, onMessage));
  }

  function post(message: ToWatcher) {
    if (service) service.receive(message);
    else worker?.postMessage(message);
  }

  function removeQuietly(file: string) {
    try {
      Deno.removeSync(file);
    } catch {
      // Gone with its folder.
    }
  }

  function closeTick() {
    try {
      tick?.close();
    } catch {
      // Closed already.
    }
    tick = undefined;
  }

  function removeBarrier() {
    closeTick();
    if (!barrier) return;
    try {
      Deno.removeSync(barrier, { recursive: true });
    } catch {
      // Gone already, or the temp folder is cleaned by the OS.
    }
  }

  /**
   * Resolves when `promise` does (true) or after FLUSH_WAIT_MS (false), whichever comes first.
   * Until a round has been waited for, on a bound that loads no timers: the first question's flush
   * comes before its server's spawn, which Node's timers loading (6–9 ms) would hold back. After
   * it, on the shared deadlines' timer, which a round that ends in time leaves as it was.
   */
  function bounded(promise: Promise<void>): Promise<boolean> {
    if (roundsWaited === 0) {
      const settled = new AbortController();
      const bound = boundDelay(FLUSH_WAIT_MS, settled.signal).then(() => false);
      // A reason of our own: an abort without one builds a DOMException and its stack.
      return Promise.race([promise.then(() => true), bound]).finally(() => settled.abort(SETTLED));
    }
    return new Promise((resolve) => {
      const clear = deadlines.add(FLUSH_WAIT_MS, () => resolve(false));
      promise.then(() => {
        clear();
        resolve(true);
      });
    });
  }

  /**
   * A barrier the watcher did not report in time: it is slow, or stuck (a FIFO opened in the
   * workspace stalls every watch of Deno's on that thread). What changed meanwhile may not have
   * been seen, so nothing remembered as unchanged is trusted; after MAX_MISSED in a row, none of
   * them reported late (a slow watcher reports them), the watcher is given up (changes are then
   * checked by size and time alone, and status says so).
   */
  function missedBarrier() {
    missed++;
    reports++;
    options.onLost?.();
    if (missed < MAX_MISSED || state !== "watching") return;
    console.error(
      `lspgate: not watching ${root} for changes: the watcher stopped answering (a FIFO opened ` +
        "in the workspace stalls it)",
    );
    state = "failed";
    worker?.terminate();
    service?.abandon();
  }

  /**
   * Writes the tick, when no earlier write of it is still unread: one byte into an open file, ~2
   * µs, where creating and removing a barrier file took 0.1–0.5 ms of a request's path. An event
   * the kernel has not handed over yet absorbs an identical later one, so while a tick is unread
   * (its round gave up waiting) a round creates a file of its own instead.
   */
  function writeTick(): boolean {
    if (!tick || tickPending) return false;
    try {
      tick.seekSync(0, Deno.SeekMode.Start);
      tick.writeSync(TICK_BYTE);
    } catch {
      closeTick();
      return false;
    }
    tickPending = true;
    return true;
  }

  /** One barrier (or, without one, one flush round trip), waited for at most FLUSH_WAIT_MS. */
  async function round(): Promise<void> {
    // In this thread: a hop to Deno's blocking pool and back would cost more than the write.
    const ticked = writeTick();
    const id = ticked ? TICK_ID : nextFlush++;
    const done = new Promise<void>((resolve) => flushed.set(id, resolve));
    const file = !ticked && barrier ? join(barrier, `b${id}`) : undefined;
    try {
      if (file) Deno.writeFileSync(file, new Uint8Array(), { createNew: true, mode: 0o600 });
      else if (!ticked) post({ type: "flush", id });
    } catch {
      // The barrier folder was removed under us: fall back to a flush without it.
      barrier = undefined;
      closeTick();
      post({ type: "flush", id });
    }
    const came = await bounded(done);
    roundsWaited++;
    flushed.delete(id);
    if (file) removeQuietly(file);
    if (!(file || ticked) || state !== "watching") return;
    if (came) missed = 0;
    else missedBarrier();
  }

  // Flushes asked while a round is in flight share the one after it: that round starts after
  // they all came, so it orders every change made before any of them (200 concurrent queries
  // make two or three rounds, not 200).
  let current: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  function startRound(): Promise<void> {
    const started = round();
    current = started;
    started.finally(() => {
      if (current === started) current = undefined;
    });
    return started;
  }
  function sharedRound(): Promise<void> {
    if (!current) return startRound();
    return queued ??= current.then(() => {
      queued = undefined;
      return startRound();
    });
  }

  return {
    get exact() {
      return state === "watching" && barrier !== undefined && !lost && missed === 0;
    },
    get runsOn() {
      if (watcherProcess) return "process" as const;
      return service ? "main thread" as const : worker ? "worker" as const : undefined;
    },
    get processId() {
      return watcherProcess?.pid;
    },
    get processShared() {
      return watcherProcess?.shared?.() ?? false;
    },
    get heard() {
      return undelivered === 0 ? reports : undefined;
    },
    get tracking(): ChangeTracking {
      if (state === "failed" || state === "stopped") return "off";
      return barrier !== undefined && !lost && missed === 0 ? "exact" : "best effort";
    },
    async flush() {
      // A watcher still setting up its watches (a large tree) holds a query back only so long.
      if (state === "starting") await bounded(watching);
      if (state === "starting") {
        // The query goes on without the watches: nothing remembered as unchanged is trusted for
        // it, and once they are in place what changed before then is reported too.
        unguarded = true;
        reports++;
        options.onLost?.();
      }
      if (state !== "watching") return;
      await sharedRound();
      if (newFolders.size) {
        // What was written into them before their watch was set: listed again before the query.
        const listed = withNewFolders([...newFolders].map((path) => ({ path, type: 1 })));
        newFolders.clear();
        const files = listed.filter((change) => !isRealFolder(change.path));
        if (files.length) onMessage({ type: "changes", changes: files });
      }
      await delivering;
    },
    stop() {
      if (state === "stopped") return;
      state = "stopped";
      worker?.terminate();
      service?.abandon();
      for (const resolve of flushed.values()) resolve();
      removeBarrier();
    },
  };
}
