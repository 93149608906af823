// The directory walk behind WorkspaceRoot.glob(): bounded, symlink-aware, never leaves the root.
import { join } from "../posix_path.ts";
import type { GlobMatcher } from "./glob.ts";

export { DEFAULT_SKIPPED_FOLDERS } from "./skipped_folders.ts";
import { skipsFolder } from "./skipped_folders.ts";

/** Most directory entries one glob looks at before it stops and says it was truncated. */
export const MAX_WALK_ENTRIES = 200_000;

/** What the walk needs to know. */
export interface WalkOptions {
  /** The pattern files must match. */
  match: GlobMatcher;
  /** Patterns for files (and whole folders) to leave out. */
  exclude: GlobMatcher[];
  /** Most results; one more match sets `truncated`. */
  limit: number;
  /** Whether a symlink's real target may be used: it must lie inside the root. */
  accept(real: string): boolean;
}

/** The walk's answer: real paths of matching files, sorted, and whether it stopped early. */
export interface WalkResult {
  paths: string[];
  truncated: boolean;
}

/**
 * Walks `root` (a real path) depth first and returns the real paths of files
 * whose workspace-relative path matches. Symlinks are followed only to
 * targets `accept` approves, and never into a folder already on the way down.
 */
export async function walkFiles(root: string, options: WalkOptions): Promise<WalkResult> {
  const found = new Set<string>();
  // `chain` holds the real folders on the way down: re-entering one would loop.
  const stack: Folder[] = [{ real: root, rel: [], chain: [root] }];
  let seen = 0;
  while (stack.length > 0) {
    const folder = stack.pop()!;
    const children: Folder[] = [];
    for (const entry of await listFolder(folder.real)) {
      if (++seen > MAX_WALK_ENTRIES) return done(found, true);
      const rel = [...folder.rel, entry.name];
      const kind = await classify(join(folder.real, entry.name), entry, options);
      if (kind === undefined) continue;
      const realRel = relativeSegments(root, kind.real);
      if (kind.folder) {
        if (folder.chain.includes(kind.real) || !enters(root, rel, realRel, options)) continue;
        children.push({ real: kind.real, rel, chain: [...folder.chain, kind.real] });
      } else if (options.match.matches(rel.join("/")) && !isExcluded(rel, realRel, options)) {
        if (found.has(kind.real)) continue;
        if (found.size >= options.limit) return done(found, true);
        found.add(kind.real);
      }
    }
    stack.push(...children.reverse());
  }
  return done(found, false);
}

interface Folder {
  real: string;
  rel: string[];
  chain: string[];
}

function relativeSegments(root: string, real: string): string[] {
  if (real === root) return [];
  return real.slice(root.endsWith("/") ? root.length : root.length + 1).split("/");
}

function done(found: Set<string>, truncated: boolean): WalkResult {
  return { paths: [...found].sort(), truncated };
}

async function listFolder(path: string): Promise<Deno.DirEntry[]> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(path)) entries.push(entry);
  } catch {
    // An unreadable folder holds nothing we may show.
    return [];
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function classify(
  path: string,
  entry: Deno.DirEntry,
  options: WalkOptions,
): Promise<{ real: string; folder: boolean } | undefined> {
  if (!entry.isSymlink) {
    if (entry.isDirectory) return { real: path, folder: true };
    return entry.isFile ? { real: path, folder: false } : undefined;
  }
  try {
    const real = await Deno.realPath(path);
    if (!options.accept(real)) return undefined;
    const info = await Deno.stat(real);
    if (info.isDirectory) return { real, folder: true };
    return info.isFile ? { real, folder: false } : undefined;
  } catch {
    // Dangling links and loops match nothing.
    return undefined;
  }
}

// Excludes and default skips apply to the path as walked and to the real path, so a
// symlinked alias cannot smuggle in what they leave out.
function enters(root: string, rel: string[], realRel: string[], options: WalkOptions): boolean {
  if (!options.match.couldContain(rel)) return false;
  for (const path of [rel, realRel]) {
    const parent = join(root, ...path.slice(0, -1));
    if (isSkippedFolder(parent, path[path.length - 1]) && !options.match.names(rel)) return false;
    if (options.exclude.some((pattern) => pattern.coversFolder(path))) return false;
  }
  return true;
}

function isExcluded(rel: string[], realRel: string[], options: WalkOptions): boolean {
  return [rel, realRel].some((path) => {
    const text = path.join("/");
    return options.exclude.some((pattern) => pattern.matches(text));
  });
}

/** Folders found to hold a build tool's manifest (a build's events under them come by thousands). */
const ownersOfTarget = new Set<string>();
const MAX_OWNERS = 1_024;

/**
 * Whether the walk leaves the folder `name` in `parent` (a path) out: skipped_folders.ts's rule,
 * the manifest looked for beside it (a stat; the watchers use the listing they made instead).
 */
export function isSkippedFolder(parent: string, name: string): boolean {
  if (ownersOfTarget.has(parent) && name === "target") return true;
  const skipped = skipsFolder(name, (file) => isFile(`${parent}/${file}`));
  if (skipped && name === "target") {
    if (ownersOfTarget.size >= MAX_OWNERS) ownersOfTarget.clear();
    ownersOfTarget.add(parent);
  }
  return skipped;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
