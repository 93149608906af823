// Where a workspace watcher runs and where its barrier lives (watcher.ts): whether a tree is small
// enough to watch on the main thread, the Worker that watches a larger one where lspgate's watcher
// process cannot start (and the links out of the root that keep it from watching), and the private
// folder and tick file a flush's barrier is written in.
import { join } from "../posix_path.ts";
import { readingOnly, WORKER_NAMES, workerUrl } from "../workers.ts";
import { env, mayReadAndWrite, runtimeFolderPath } from "../fs.ts";
import { ensureRuntimeFolderSync } from "../runtime_folder.ts";
import type { FromWatcher } from "./watch_protocol.ts";

/**
 * The largest tree whose watcher runs on the main thread: Deno.watchFs walks every entry and sets a
 * watch on every folder before it returns (measured: ~11 µs a folder, ~3.5 a file), ~45 ms here.
 */
export const IN_THREAD_MAX = { folders: 1_000, entries: 10_000 };

/**
 * Whether `root` is within IN_THREAD_MAX and holds no symlink (which Deno.watchFs would follow, out
 * of the root too); unreadable folders are skipped. In the thread, as Deno.watchFs's own walk is: a
 * listing opens no file, and each folder awaited was a hop to Deno's blocking pool, ~8 ms of the
 * first question's wait for the watcher on a loaded machine (the clangd fixture's 9 folders).
 */
export function smallTree(root: string): boolean {
  const stack = [root];
  let folders = 0;
  let entries = 0;
  while (stack.length) {
    const folder = stack.pop()!;
    try {
      for (const entry of Deno.readDirSync(folder)) {
        if (++entries > IN_THREAD_MAX.entries) return false;
        // Deno.watchFs follows links: one to `/` had it walk the whole disk on this thread (12 s
        // before the first answer, then given up). The watcher process follows none.
        if (entry.isSymlink) return false;
        if (!entry.isDirectory) continue;
        if (++folders > IN_THREAD_MAX.folders) return false;
        stack.push(`${folder}/${entry.name}`);
      }
    } catch {
      // Unreadable: its watch fails the same way.
    }
  }
  return true;
}

/** The watcher's Worker: it may read the root and the barrier folder, and nothing else. */
export function startWorker(
  root: string,
  barrier: string | undefined,
  onMessage: (message: FromWatcher) => void,
): Worker {
  const worker = new Worker(workerUrl(), {
    type: "module",
    name: WORKER_NAMES.watcher,
    deno: { permissions: readingOnly(barrier ? [root, barrier] : [root]) },
  } as WorkerOptions);
  worker.onmessage = (event: MessageEvent<FromWatcher>) => onMessage(event.data);
  worker.onerror = (event) => {
    event.preventDefault();
    onMessage({ type: "failed", message: `the watcher failed: ${event.message}` });
  };
  return worker;
}

/**
 * A fresh private folder for flush barriers, where lspgate may read and write without asking: in
 * the user's runtime folder (a daemon's grant) or the temp folder; none without such a grant.
 * Never inside the workspace, whose watcher would report it.
 */
export function barrierFolder(root: string): string | undefined {
  const runtime = runtimeFolderPath();
  const temp = env("TMPDIR") || "/tmp";
  for (const parent of [runtime, temp]) {
    if (parent === root || parent.startsWith(root + "/")) continue;
    if (!mayReadAndWrite(parent)) continue;
    try {
      if (parent === runtime && !isPrivateFolder(runtime)) continue;
      return Deno.makeTempDirSync({ dir: parent, prefix: "barrier-" });
    } catch {
      // Not writable after all: try the next.
    }
  }
  return undefined;
}

/** The barrier id of the tick: file `b0`, written to rather than created (watcher.ts, writeTick). */
export const TICK_ID = 0;

/** The tick file of a fresh barrier folder, open for writing; none where it cannot be made. */
export function openTick(folder: string): Deno.FsFile | undefined {
  try {
    return Deno.openSync(join(folder, `b${TICK_ID}`), {
      write: true,
      createNew: true,
      mode: 0o600,
    });
  } catch {
    return undefined;
  }
}

/** The runtime folder is (made when missing) a folder of this user's, closed to others. */
function isPrivateFolder(path: string): boolean {
  try {
    return ensureRuntimeFolderSync() === path;
  } catch {
    return false;
  }
}

/**
 * The first symlink under `root` to a folder outside it (links are not followed), or undefined.
 * Deno.watchFs follows such a link and watches (and lists) what it leads to: where lspgate's own
 * watcher process cannot run, a tree holding one is not watched with it at all.
 */
export async function linkOutOfRoot(root: string): Promise<string | undefined> {
  const prefix = root.endsWith("/") ? root : root + "/";
  const stack = [root];
  while (stack.length) {
    const folder = stack.pop()!;
    try {
      for (const entry of Deno.readDirSync(folder)) {
        const path = `${folder}/${entry.name}`;
        if (entry.isDirectory) stack.push(path);
        if (!entry.isSymlink) continue;
        try {
          const target = await Deno.realPath(path);
          if (!target.startsWith(prefix) && (await Deno.stat(path)).isDirectory) return path;
        } catch {
          // Dangling, or a loop: nothing a watch could follow.
        }
      }
    } catch {
      // Unreadable: its watch fails the same way.
    }
  }
  return undefined;
}
