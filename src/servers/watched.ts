// What the workspace watcher covers, shared by the watcher's Worker and the manager; free of
// node: imports so the Worker stays small.
import { DEFAULT_SKIPPED_FOLDERS } from "../permissions/skipped_folders.ts";

/** Whether the watcher reports changes of `path`: inside `root`, outside the heavy folders. */
export function isWatched(root: string, path: string): boolean {
  const prefix = root.endsWith("/") ? root : root + "/";
  return path.startsWith(prefix) &&
    !path.slice(prefix.length).split("/").some((part) => DEFAULT_SKIPPED_FOLDERS.has(part));
}
