import { DEFAULT_SKIPPED_FOLDERS } from "../permissions/walk.ts";

/** A change to a file on disk, as `workspace/didChangeWatchedFiles` counts them. */
export interface FileChange {
  path: string;
  /** 1 created, 2 changed, 3 deleted. */
  type: 1 | 2 | 3;
}

const DEBOUNCE_MS = 50;

/**
 * Watches the workspace so servers hear about files other tools change (for files they do not
 * have open; open ones are re-checked before every query anyway). Heavy folders are ignored.
 * `flush()` delivers what is pending at once (called before each query, so an edit made just
 * before it is not missed by the debounce). A watcher that cannot start (inotify limits) is
 * reported and skipped.
 */
export function watchWorkspace(
  root: string,
  onChanges: (changes: FileChange[]) => Promise<void>,
): { stop(): void; flush(): Promise<void> } {
  let watcher: Deno.FsWatcher;
  try {
    watcher = Deno.watchFs(root, { recursive: true });
  } catch (error) {
    console.error(`lspgate: not watching ${root} for changes: ${error}`);
    return { stop() {}, flush: () => Promise.resolve() };
  }
  let pending = new Map<string, FileChange["type"]>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let delivering: Promise<void> = Promise.resolve();
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const changes = [...pending].map(([path, type]) => ({ path, type }));
    pending = new Map();
    if (changes.length) delivering = delivering.then(() => onChanges(changes)).catch(() => {});
  };
  const ignored = (path: string) =>
    path.slice(root.length).split("/").some((part) => DEFAULT_SKIPPED_FOLDERS.has(part));
  (async () => {
    try {
      for await (const event of watcher) {
        const type = event.kind === "create" ? 1 : event.kind === "remove" ? 3 : 2;
        for (const [index, path] of event.paths.entries()) {
          if (ignored(path) || event.kind === "access" || event.kind === "other") continue;
          // A rename reports the old path then the new one.
          const kind = event.kind === "rename" ? (index === 0 ? 3 : 1) : type;
          pending.set(path, pending.get(path) === 1 && kind === 2 ? 1 : kind);
        }
        timer ??= setTimeout(flush, DEBOUNCE_MS);
      }
    } catch {
      // Closed, or the root went away: nothing more to watch.
    }
  })();
  return {
    stop() {
      clearTimeout(timer);
      try {
        watcher.close();
      } catch {
        // Already closed.
      }
    },
    async flush() {
      // One turn of the event loop lets events the OS already queued reach us first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (timer !== undefined) flush();
      await delivering;
    },
  };
}
