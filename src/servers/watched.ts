// What the workspace watcher covers, shared by the watcher's Worker and the manager; free of
// node: imports so the Worker stays small.
import { DEFAULT_SKIPPED_FOLDERS } from "../permissions/skipped_folders.ts";
import { isSideName } from "../permissions/temp_names.ts";

/**
 * Whether the watcher reports changes of `path`: inside `root`, outside the heavy folders, and not
 * one of the side files an apply writes beside its targets (their renames are reported instead).
 */
export function isWatched(root: string, path: string): boolean {
  const prefix = root.endsWith("/") ? root : root + "/";
  if (!path.startsWith(prefix) || isSideName(path.slice(path.lastIndexOf("/") + 1))) return false;
  return !path.slice(prefix.length).split("/").some((part) => DEFAULT_SKIPPED_FOLDERS.has(part));
}
