// What the workspace watcher covers, shared by the watcher's Worker and the manager; free of
// node: imports and of reads so the Worker stays small and reaches nothing (client_wall_test).
import { DEFAULT_SKIPPED_FOLDERS } from "../permissions/skipped_folders.ts";
import { isSideName } from "../permissions/temp_names.ts";

/**
 * Whether every watcher reports changes of `path`, so that what is remembered of it may be trusted
 * until one says otherwise: inside `root`, in no heavy folder (any `target`: the watcher process
 * leaves out a build tool's, skipped_folders.ts), not one of the side files an apply writes beside
 * its targets (their renames are reported instead).
 */
export function isWatched(root: string, path: string): boolean {
  return inside(root, path, (part) => DEFAULT_SKIPPED_FOLDERS.has(part));
}

/**
 * Whether Deno's watcher (this thread's, the Worker's) reports `path`'s change: as isWatched, but
 * a `target` folder's too, which it cannot tell from a build's without reading beside it.
 */
export function isReported(root: string, path: string): boolean {
  return inside(root, path, (part) => part !== "target" && DEFAULT_SKIPPED_FOLDERS.has(part));
}

function inside(root: string, path: string, skipped: (part: string) => boolean): boolean {
  const prefix = root.endsWith("/") ? root : root + "/";
  if (!path.startsWith(prefix) || isSideName(path.slice(path.lastIndexOf("/") + 1))) return false;
  return !path.slice(prefix.length).split("/").some(skipped);
}
