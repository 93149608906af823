/** A change to a file on disk, as `workspace/didChangeWatchedFiles` counts them. */
export interface FileChange {
  path: string;
  /** 1 created, 2 changed, 3 deleted. */
  type: 1 | 2 | 3;
}

/** Messages to the watcher Worker. */
export type ToWatcher =
  | { type: "start"; root: string; barrier?: string }
  | { type: "flush"; id: number };

/** Messages from the watcher Worker. */
export type FromWatcher =
  | { type: "watching" }
  | { type: "changes"; changes: FileChange[] }
  | { type: "flushed"; id: number }
  | { type: "rescan" }
  | { type: "failed"; message: string };
