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
