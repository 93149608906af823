/** A change to a file on disk, as `workspace/didChangeWatchedFiles` counts them. */
export interface FileChange {
  path: string;
  /** 1 created, 2 changed, 3 deleted. */
  type: 1 | 2 | 3;
}

/** Messages to a workspace's watch. */
export type ToWatcher =
  | { type: "start"; root: string; barrier?: string }
  | { type: "flush"; id: number }
  | { type: "stop" };

/** Messages from a workspace's watch. */
export type FromWatcher =
  | { type: "watching" }
  | { type: "changes"; changes: FileChange[] }
  | { type: "flushed"; id: number }
  | { type: "rescan" }
  | { type: "failed"; message: string }
  | { type: "closed" };

/** To the shared watcher Worker: a message for one of the watches it runs (watch_host.ts). */
export interface ToHost {
  to: number;
  message: ToWatcher;
}

/** From the shared watcher Worker: a message of one of its watches. */
export interface FromHost {
  from: number;
  message: FromWatcher;
}
