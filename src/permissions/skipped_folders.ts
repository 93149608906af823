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
export const TARGET_MANIFESTS: readonly string[] = [
  "Cargo.toml",
  "pom.xml",
  "build.sbt",
  "project.clj",
];

/**
 * Whether a folder `name` is left out, `beside(file)` saying whether its parent holds that file:
 * one of DEFAULT_SKIPPED_FOLDERS, and `target` only beside a build tool's manifest.
 */
export function skipsFolder(name: string, beside: (file: string) => boolean): boolean {
  if (!DEFAULT_SKIPPED_FOLDERS.has(name)) return false;
  return name !== "target" || TARGET_MANIFESTS.some(beside);
}
