// Kept free of imports: the watcher's Worker loads it, and node:path would bring Deno's Node
// support into that isolate.

/** Folders a glob does not enter unless the pattern names them: VCS data, dependencies, caches. */
export const DEFAULT_SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  ".jj",
  "node_modules",
  "bower_components",
  ".venv",
  "__pycache__",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".tox",
  ".gradle",
  ".cache",
  "target",
]);

/**
 * The build tools that write their output to a `target` folder beside their manifest: Cargo,
 * Maven, sbt, Leiningen. Anywhere else `target` can be a project's own source folder, which its
 * server reads: skipped, its files' changes went unreported and pyright answered from the old text.
 */
const TARGET_MANIFESTS = ["Cargo.toml", "pom.xml", "build.sbt", "project.clj"];
/** Folders found to hold such a manifest (a build's events under them come by the thousand). */
const ownersOfTarget = new Set<string>();
const MAX_OWNERS = 1_024;

/**
 * Whether the folder `name` in `parent` (a path) is left out: one of DEFAULT_SKIPPED_FOLDERS, and
 * for `target` only where a build tool's manifest lies beside it.
 */
export function isSkippedFolder(parent: string, name: string): boolean {
  if (!DEFAULT_SKIPPED_FOLDERS.has(name)) return false;
  if (name !== "target") return true;
  if (ownersOfTarget.has(parent)) return true;
  const owned = TARGET_MANIFESTS.some((manifest) => isFile(`${parent}/${manifest}`));
  if (owned) {
    if (ownersOfTarget.size >= MAX_OWNERS) ownersOfTarget.clear();
    ownersOfTarget.add(parent);
  }
  return owned;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
