// What a workspace watcher (watcher.ts) offers its session, and the options it is started with.

/** A running workspace watcher. */
export interface WorkspaceWatcher {
  /** Delivers every change made before the call (with a barrier; else those already seen). */
  flush(): Promise<void>;
  /**
   * True while a flush is exact: the watcher runs, a barrier orders its events, and none were
   * lost. A caller may then trust it to have heard of every change, instead of checking.
   */
  readonly exact: boolean;
  /** How changes on disk are followed, for `status`. */
  readonly tracking: ChangeTracking;
  /**
   * How many reports of changes (or of changes lost) the watcher has made, or undefined while
   * one is still being delivered: equal before and after a flush, nothing changed in between.
   */
  readonly heard: number | undefined;
  /** Where the watching runs, once that is decided. */
  readonly runsOn: "main thread" | "worker" | "process" | undefined;
  /** The watcher process's pid, where it runs in one. */
  readonly processId: number | undefined;
  /** Whether that process watches other roots too (a daemon's, shared by its sessions). */
  readonly processShared: boolean;
  stop(): void;
}

/**
 * "exact": every change made before a query reaches the servers first (the barrier);
 * "best effort": those the watcher has read by then; "off": the watcher is not running (open
 * documents are still checked before each query).
 */
export type ChangeTracking = "exact" | "best effort" | "off";

/** What a watcher reports besides changes. */
export interface WatchOptions {
  /** The kernel's event queue overflowed: changes were lost, so nothing known can be trusted. */
  onLost?: () => void;
  /**
   * Watch on this thread rather than in a Worker (~15 MiB less, one thread hop less per flush)
   * where the tree is within IN_THREAD_MAX. Only for a session that lasts as
   * long as its process: a stopped watcher is abandoned, not closed (see watch_service.ts), and the
   * process's exit ends it.
   */
  inThread?: boolean;
  /**
   * Where the watching does not run on this thread: lspgate's own watcher process
   * (inotify_watch.ts) where it can start, a Worker otherwise (the default; false: a Worker).
   */
  process?: boolean;
}
