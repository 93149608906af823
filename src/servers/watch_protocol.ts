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
  | {
    type: "failed";
    message: string;
    /** lspgate's watcher process ended (killed, say): another may take over. */
    ended?: boolean;
  };

/** One change, as Deno's FsEvent has it (watch_service.ts reads either). */
export interface WatchEvent {
  kind: "watching" | "create" | "modify" | "remove" | "rename" | "other" | "failed";
  paths: string[];
  flag?: "rescan";
  message?: string;
  /** With "failed": the watcher process itself ended. */
  ended?: boolean;
}

/** A watcher process's events, in the kernel's order, and how to end it (inotify_process.ts). */
export interface WatchEventSource {
  pid: number;
  /** Whether the process watches other roots too (a daemon's): its size is theirs too. */
  shared?(): boolean;
  events: AsyncIterable<WatchEvent>;
  stop(): void;
}
