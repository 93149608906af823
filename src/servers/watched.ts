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
      for await (const entry of Deno.readDir(folder)) {
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
