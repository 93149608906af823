// What the workspace watcher covers, shared by the watcher's Worker and the manager; free of
// node: imports so the Worker stays small.
import { isSkippedFolder } from "../permissions/skipped_folders.ts";
import { isSideName } from "../permissions/temp_names.ts";

/**
 * Whether the watcher reports changes of `path`: inside `root`, outside the heavy folders, and not
 * one of the side files an apply writes beside its targets (their renames are reported instead).
 */
export function isWatched(root: string, path: string): boolean {
  const prefix = root.endsWith("/") ? root : root + "/";
  if (!path.startsWith(prefix) || isSideName(path.slice(path.lastIndexOf("/") + 1))) return false;
  let parent = root.endsWith("/") ? root.slice(0, -1) : root;
  for (const part of path.slice(prefix.length).split("/")) {
    if (isSkippedFolder(parent, part)) return false;
    parent = `${parent}/${part}`;
  }
  return true;
}
