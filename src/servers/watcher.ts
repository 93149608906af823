import { WORKER_NAMES, workerUrl } from "../worker_entry.ts";

/** A change to a file on disk, as `workspace/didChangeWatchedFiles` counts them. */
export interface FileChange {
  path: string;
  /** 1 created, 2 changed, 3 deleted. */
  type: 1 | 2 | 3;
}

/** How long a flush waits for the watcher before going on without it. */
const FLUSH_WAIT_MS = 200;

/** A running workspace watcher. */
export interface WorkspaceWatcher {
  /** Delivers pending changes now (called before each query). */
  flush(): Promise<void>;
  stop(): void;
}

/**
 * Watches the workspace so servers hear about files other tools change (for files they do not
 * have open; open ones are re-checked before every query anyway). Heavy folders are ignored.
 * The watching runs in a Worker allowed to read the root and nothing else (see watch_worker.ts
 * for why not on the main thread). A watcher that cannot start is reported and skipped.
 */
export function watchWorkspace(
  root: string,
  onChanges: (changes: FileChange[]) => Promise<void>,
): WorkspaceWatcher {
  const worker = new Worker(workerUrl(), {
    type: "module",
    name: WORKER_NAMES.watcher,
    deno: {
      permissions: {
        read: [root],
        write: false,
        net: false,
        env: false,
        run: false,
        ffi: false,
        sys: false,
        import: false,
      },
    },
  } as WorkerOptions);
  let delivering: Promise<void> = Promise.resolve();
  let nextFlush = 1;
  const flushed = new Map<number, () => void>();
  worker.onmessage = (event) => {
    const message = event.data;
    if (message.type === "changes") {
      const changes = message.changes as FileChange[];
      delivering = delivering.then(() => onChanges(changes)).catch(() => {});
    } else if (message.type === "flushed") {
      flushed.get(message.id)?.();
    } else if (message.type === "failed") {
      console.error(`lspgate: not watching ${root} for changes: ${message.message}`);
    }
  };
  worker.onerror = (event) => {
    event.preventDefault();
    console.error(`lspgate: the workspace watcher failed: ${event.message}`);
  };
  worker.postMessage({ type: "start", root });
  let stopped = false;
  return {
    async flush() {
      if (stopped) return;
      // One turn of the event loop lets changes the watcher already posted arrive first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const id = nextFlush++;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        flushed.set(id, resolve);
        timer = setTimeout(resolve, FLUSH_WAIT_MS);
        worker.postMessage({ type: "flush", id });
      });
      clearTimeout(timer);
      flushed.delete(id);
      await delivering;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      worker.terminate();
    },
  };
}
