// The files a what-if checks beside the changed file: those that import it, and, through a file
// that re-exports it (a barrel index.ts, a package's __init__.py), those that import that file
// (issue 17: a change that broke a file importing it through src/index.ts answered "0 new
// diagnostics" and complete: true). Found by reading import statements; the server decides what
// each file really depends on.
import { dirname, join } from "node:path";
import type { WorkspacePath } from "../permissions/workspace.ts";
import type { ActionContext } from "./types.ts";

/** Most importers a what-if checks besides the file itself. */
export const MAX_IMPORTERS = 8;
/** Most files read while looking for them. */
const MAX_SCANNED = 1000;
/** Files larger than this are not read while looking (generated code, bundles). */
const MAX_SCANNED_BYTES = 256 * 1024;
const READ_CONCURRENCY = 16;

/** File names that stand for their folder in an import (`zoo/__init__.py` is `zoo`). */
const FOLDER_MODULES = new Set(["__init__", "index", "mod"]);
const IMPORT_WORD = /\b(import|from|require|include|use|mod|load|source)\b/;
/** JavaScript and TypeScript: their relative imports are resolved, not guessed. */
const SCRIPT = /\.(?:[cm]?[jt]sx?)$/i;
/** An import or export statement with a module specifier, over lines; `import("x")`, `require`. */
const STATEMENT =
  /(?:^|[;}\n])\s*(import|export)\b(?:[^;"'`]|\n)*?\bfrom\s*["']([^"'\n]+)["']|(?:^|[;\n])\s*import\s*["']([^"'\n]+)["']|\b(?:import|require)\s*\(\s*["']([^"'\n]+)["']\s*\)/g;

/** The files to check beside a changed file, and what the search could not cover. */
export interface ImporterSearch {
  /** At most MAX_IMPORTERS: direct importers first, then those importing through a re-export. */
  importers: WorkspacePath[];
  /** Importers found beyond MAX_IMPORTERS, workspace-relative: not checked. */
  unchecked: string[];
  /** Why some files were not looked at, if any were not (too many files to read). */
  incomplete?: string;
}

/**
 * Files served by the same language server as `path` that import it, directly or through files
 * that re-export it, transitively: nearest folders first, bounded (MAX_IMPORTERS checked, the
 * rest named in `unchecked`).
 */
export async function findImporters(
  context: ActionContext,
  path: WorkspacePath,
): Promise<ImporterSearch> {
  const none: ImporterSearch = { importers: [], unchecked: [] };
  const pick = await context.manager.pick(path);
  if (!pick || !moduleName(path)) return none;
  const extensions = new Set(Object.keys(pick.adapter.languages));
  const root = context.workspace.relative(pick.root);
  const pattern = root === "." || root === "" ? "**/*" : `${root}/**/*`;
  const found = await context.workspace.glob(pattern, { limit: 20_000 }).catch(() => undefined);
  if (!found) return { ...none, incomplete: "the workspace could not be listed" };
  const folder = path.slice(0, path.lastIndexOf("/"));
  const all = found.paths
    .filter((p) => p !== path && extensions.has(extensionOf(p)))
    .sort((a, b) => distance(folder, a) - distance(folder, b) || (a < b ? -1 : 1));
  const candidates = all.slice(0, MAX_SCANNED);
  const texts = await readAll(context, candidates);
  const seen = new Set<string>([path]);
  const ordered: WorkspacePath[] = [];
  // Breadth first: the direct importers, then the importers of each re-exporting one.
  for (let queue = [path]; queue.length > 0;) {
    const next: WorkspacePath[] = [];
    for (const target of queue) {
      for (const candidate of candidates) {
        if (seen.has(candidate)) continue;
        const text = texts.get(candidate);
        const use = text === undefined ? undefined : uses(candidate, text, target);
        if (!use) continue;
        seen.add(candidate);
        ordered.push(candidate);
        if (use === "reexports") next.push(candidate);
      }
    }
    queue = next;
  }
  const left = all.length - candidates.length;
  return {
    importers: ordered.slice(0, MAX_IMPORTERS),
    unchecked: ordered.slice(MAX_IMPORTERS).map((p) => context.workspace.relative(p)),
    ...(left > 0 || found.truncated
      ? { incomplete: `${left > 0 ? left : "some"} files farther away were not read` }
      : {}),
  };
}

async function readAll(
  context: ActionContext,
  paths: readonly WorkspacePath[],
): Promise<Map<WorkspacePath, string>> {
  const texts = new Map<WorkspacePath, string>();
  for (let i = 0; i < paths.length; i += READ_CONCURRENCY) {
    const batch = paths.slice(i, i + READ_CONCURRENCY);
    await Promise.all(batch.map(async (p) => {
      try {
        texts.set(p, await context.workspace.readText(p, { maxBytes: MAX_SCANNED_BYTES }));
      } catch {
        // Unreadable or too large: not an importer we can tell of.
      }
    }));
  }
  return texts;
}

/**
 * Whether `importer` (its text) uses `target`: "reexports" when what it imports from it is passed
 * on (an `export … from` statement; any import of a folder module such as __init__.py or mod.rs,
 * which stands for its package), "imports" for a plain import, undefined for none.
 */
export function uses(
  importer: string,
  text: string,
  target: string,
): "imports" | "reexports" | undefined {
  const folderModule = FOLDER_MODULES.has(stemOf(importer));
  if (SCRIPT.test(importer) && SCRIPT.test(target)) {
    let use: "imports" | "reexports" | undefined;
    for (const m of text.matchAll(STATEMENT)) {
      const specifier = m[2] ?? m[3] ?? m[4];
      if (!names(importer, specifier, target)) continue;
      if (m[1] === "export" || folderModule) return "reexports";
      use = "imports";
    }
    return use;
  }
  const name = moduleName(target);
  if (!name || !text.includes(name)) return undefined;
  const named = new RegExp(`(^|[^\\w$])${escapeRegExp(name)}($|[^\\w$])`);
  const imports = text.split(/\r\n|\r|\n/).some((line) =>
    IMPORT_WORD.test(line) && named.test(line)
  );
  if (!imports) return undefined;
  return folderModule ? "reexports" : "imports";
}

/** The paths (absolute, as written, extension kept if given) a script's relative imports name. */
export function relativeImports(importer: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(STATEMENT)) {
    const specifier = m[2] ?? m[3] ?? m[4];
    if (specifier.startsWith(".")) found.push(join(dirname(importer), specifier));
  }
  return found;
}

/**
 * Whether a script's import specifier names `target`: a relative one resolved (with or without
 * its extension, a folder standing for its index), else a package path ending in its module name
 * (a path alias such as `@/util`: a guess, as the server's resolution is not known here).
 */
function names(importer: string, specifier: string, target: string): boolean {
  const bare = target.replace(SCRIPT, "");
  const forms = new Set([bare]);
  if (stemOf(target) === "index") forms.add(dirname(target));
  if (specifier.startsWith(".")) {
    const resolved = join(dirname(importer), specifier).replace(/\/$/, "");
    return forms.has(resolved) || forms.has(resolved.replace(SCRIPT, ""));
  }
  const name = moduleName(target);
  const last = specifier.replace(SCRIPT, "").split("/").at(-1);
  return name !== undefined && last === name && specifier.includes("/");
}

/** The name other files import `path` by: its base name, or its folder's for an index file. */
export function moduleName(path: string): string | undefined {
  const parts = path.split("/").filter(Boolean);
  const stem = stemOf(path);
  const name = FOLDER_MODULES.has(stem) ? parts.at(-2) : stem;
  return name && name.length > 0 ? name : undefined;
}

function stemOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.indexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}

/** Folder steps from `folder` to `path`'s folder: importers are usually near. */
function distance(folder: string, path: string): number {
  const a = folder.split("/");
  const b = path.split("/").slice(0, -1);
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return a.length - common + b.length - common;
}

function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "";
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
