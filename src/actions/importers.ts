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

/**
 * Files served by the same language server as `path` that look as if they import it: a line with
 * an import keyword and the module's name as a word. A cheap guess, bounded (up to MAX_IMPORTERS,
 * nearest folders first); the server decides what each file really depends on.
 */
export async function findImporters(
  context: ActionContext,
  path: WorkspacePath,
): Promise<WorkspacePath[]> {
  const pick = await context.manager.pick(path);
  const name = moduleName(path);
  if (!pick || !name) return [];
  const extensions = new Set(Object.keys(pick.adapter.languages));
  const root = context.workspace.relative(pick.root);
  const pattern = root === "." || root === "" ? "**/*" : `${root}/**/*`;
  const found = await context.workspace.glob(pattern, { limit: 20_000 }).catch(() => undefined);
  if (!found) return [];
  const folder = path.slice(0, path.lastIndexOf("/"));
  const candidates = found.paths
    .filter((p) => p !== path && extensions.has(extensionOf(p)))
    .sort((a, b) => distance(folder, a) - distance(folder, b) || (a < b ? -1 : 1))
    .slice(0, MAX_SCANNED);
  const named = new RegExp(`(^|[^\\w$])${escapeRegExp(name)}($|[^\\w$])`);
  const importers: WorkspacePath[] = [];
  for (
    let i = 0;
    i < candidates.length && importers.length < MAX_IMPORTERS;
    i += READ_CONCURRENCY
  ) {
    const batch = candidates.slice(i, i + READ_CONCURRENCY);
    const hits = await Promise.all(batch.map(async (candidate) => {
      try {
        const text = await context.workspace.readText(candidate, { maxBytes: MAX_SCANNED_BYTES });
        if (!text.includes(name)) return false;
        return text.split(/\r\n|\r|\n/).some((line) => IMPORT_WORD.test(line) && named.test(line));
      } catch {
        return false;
      }
    }));
    importers.push(...batch.filter((_, j) => hits[j]));
  }
  return importers.slice(0, MAX_IMPORTERS);
}

/** The name other files import `path` by: its base name, or its folder's for an index file. */
export function moduleName(path: string): string | undefined {
  const parts = path.split("/").filter(Boolean);
  const base = parts.at(-1) ?? "";
  const dot = base.indexOf(".");
  const stem = dot > 0 ? base.slice(0, dot) : base;
  const name = FOLDER_MODULES.has(stem) ? parts.at(-2) : stem;
  return name && name.length > 0 ? name : undefined;
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
