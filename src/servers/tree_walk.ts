// The one walk over a workspace's tree that the checks for repository code share (svelte, vue,
// astro configs): bounded, since a checkout can hold millions of entries.

/** How many entries a walk looks at; past it the answer is "maybe", which counts as yes. */
export const MAX_WALKED_ENTRIES = 50_000;

/**
 * Calls `visit` for every entry under `root` (paths relative to it), entering the folders `enter`
 * allows; false when it stopped at MAX_WALKED_ENTRIES before seeing everything. Unreadable folders
 * are passed over.
 */
export async function walkTree(
  root: string,
  visit: (path: string, entry: Deno.DirEntry) => Promise<void> | void,
  enter: (entry: Deno.DirEntry, folder: string) => boolean,
): Promise<boolean> {
  const stack = [""];
  let seen = 0;
  while (stack.length) {
    const rel = stack.pop()!;
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(rel ? `${root}/${rel}` : root));
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > MAX_WALKED_ENTRIES) return false;
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      await visit(path, entry);
      if (entry.isDirectory && enter(entry, rel ? `${root}/${rel}` : root)) stack.push(path);
    }
  }
  return true;
}
