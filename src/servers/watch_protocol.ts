import type { FileChange } from "./watcher.ts";

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
