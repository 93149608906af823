// Deno's watcher sets a created folder's watch after the fact, so files written into a new folder
// before then are never reported: watcher.ts lists such folders itself (lspgate's watcher process
// does its own listing).
import { isSkippedFolder } from "../permissions/walk.ts";
import type { FileChange } from "./watch_protocol.ts";

/** Most entries of created folders listed for the files in them, per batch of changes. */
const MAX_NEW_FOLDER_ENTRIES = 2_000;

/**
 * `changes`, and a creation for each file found in a folder they say was created (links not
 * followed, the heavy folders left out), at most MAX_NEW_FOLDER_ENTRIES entries looked at; the
 * created folders are added to `created`.
 */
export function withNewFolders(changes: FileChange[], created?: Set<string>): FileChange[] {
  const found: FileChange[] = [];
  let looked = 0;
  const pending = changes.filter((c) => c.type === 1 && isRealFolder(c.path)).map((c) => c.path);
  for (const folder of pending) created?.add(folder);
  while (pending.length && looked < MAX_NEW_FOLDER_ENTRIES) {
    const folder = pending.pop()!;
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(folder)];
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++looked > MAX_NEW_FOLDER_ENTRIES) break;
      const path = `${folder}/${entry.name}`;
      if (entry.isFile) found.push({ path, type: 1 });
      else if (entry.isDirectory && !isSkippedFolder(folder, entry.name)) pending.push(path);
    }
  }
  if (found.length === 0) return changes;
  const known = new Set(changes.map((c) => c.path));
  return [...changes, ...found.filter((c) => !known.has(c.path))];
}

export function isRealFolder(path: string): boolean {
  try {
    return Deno.lstatSync(path).isDirectory;
  } catch {
    return false;
  }
}
