// The files a what-if checks beside the changed file: those that import it, and, through a file
// that re-exports it (a barrel index.ts, a package's __init__.py), those that import that file
// (issue 17: a change that broke a file importing it through src/index.ts answered "0 new
// diagnostics" and complete: true). Found by reading import statements, their names resolved as
// the project resolves them (import_resolution.ts); the server decides what each file really
// depends on.
import { dirname, join } from "../posix_path.ts";
import type { WorkspacePath } from "../permissions/workspace.ts";
import { ImportResolver } from "./import_resolution.ts";
import { pythonImports, scriptImports } from "./import_statements.ts";
import type { ActionContext } from "./types.ts";
import { escapeRegExp } from "../../adapters/name_coverage.ts";

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
const PYTHON = /\.pyi?$/i;
/** A `declare module "x"`: a module the project declares, so not a file to find. */
const AMBIENT_MODULE = /\bdeclare\s+module\s+["']([^"'\n]+)["']/g;

/** The files to check beside a changed file, and what the search could not cover. */
export interface ImporterSearch {
  /** At most MAX_IMPORTERS: direct importers first, then those importing through a re-export. */
  importers: WorkspacePath[];
  /** Importers found beyond MAX_IMPORTERS, workspace-relative: not checked. */
  unchecked: string[];
  /** Importers in another project (another server's root), workspace-relative: not checked. */
  elsewhere?: string[];
  /** Why some files were not looked at, if any were not (too many files to read). */
  incomplete?: string;
  /**
   * Imports lspgate could not resolve that may name the changed file (or a file passing it on),
   * workspace-relative; their files are among the importers as possible ones.
   */
  unresolved?: { file: string; specifier: string }[];
}

/**
 * Files of `path`'s language that import it, directly or through files that re-export it,
 * transitively: nearest folders first, bounded (MAX_IMPORTERS of its own server's checked, the
 * rest named in `unchecked`, another project's in `elsewhere`). A bare import lspgate cannot
 * resolve that may name one of them makes its file a possible importer, named in `unresolved`.
 */
export async function findImporters(
  context: ActionContext,
  path: WorkspacePath,
): Promise<ImporterSearch> {
  const none: ImporterSearch = { importers: [], unchecked: [] };
  const pick = await context.manager.pick(path);
  if (!pick || !moduleName(path)) return none;
  const extensions = new Set(Object.keys(pick.adapter.languages));
  // The whole workspace: in a monorepo a package's importers live in its sibling projects.
  const found = await context.workspace.glob("**/*", { limit: 20_000 }).catch(() => undefined);
  if (!found) return { ...none, incomplete: "the workspace could not be listed" };
  const folder = path.slice(0, path.lastIndexOf("/"));
  const all = found.paths
    .filter((p) => p !== path && extensions.has(extensionOf(p)))
    .sort((a, b) => distance(folder, a) - distance(folder, b) || (a < b ? -1 : 1));
  const candidates = all.slice(0, MAX_SCANNED);
  const texts = await readAll(context, candidates);
  const ambient = new Set<string>();
  for (const text of texts.values()) {
    for (const m of text.matchAll(AMBIENT_MODULE)) ambient.add(m[1]);
  }
  const resolver = new ImportResolver(
    context.workspace,
    new Set<string>(found.paths),
    pick.root,
    ambient,
  );
  const refs = new Map<WorkspacePath, Promise<ImportRef[] | undefined>>();
  const refsOf = (file: WorkspacePath) => {
    let known = refs.get(file);
    if (!known) {
      const text = texts.get(file);
      known = text === undefined ? Promise.resolve(undefined) : importRefs(resolver, file, text);
      refs.set(file, known);
    }
    return known;
  };
  const seen = new Set<string>([path]);
  const ordered: WorkspacePath[] = [];
  const unresolved: { file: string; specifier: string }[] = [];
  // Breadth first: the direct importers, then the importers of each re-exporting one.
  for (let queue = [path]; queue.length > 0;) {
    const next: WorkspacePath[] = [];
    for (const target of queue) {
      for (const candidate of candidates) {
        if (seen.has(candidate)) continue;
        const text = texts.get(candidate);
        if (text === undefined) continue;
        const parsed = await refsOf(candidate);
        const use = parsed
          ? await refsUse(resolver, candidate, parsed, target)
          : { use: uses(candidate, text, target) };
        if (!use.use) continue;
        seen.add(candidate);
        ordered.push(candidate);
        for (const specifier of use.unresolved ?? []) {
          unresolved.push({ file: context.workspace.relative(candidate), specifier });
        }
        if (use.use === "reexports") next.push(candidate);
      }
    }
    queue = next;
  }
  // An importer another server serves (another project's root) would read the changed file from
  // the disk, not the proposed text: it cannot be checked by this what-if, only named.
  const served: WorkspacePath[] = [];
  const elsewhere: string[] = [];
  for (const importer of ordered) {
    const its = await context.manager.pick(importer);
    if (its?.adapter.id === pick.adapter.id && its.root === pick.root) served.push(importer);
    else elsewhere.push(context.workspace.relative(importer));
  }
  const left = all.length - candidates.length;
  return {
    importers: served.slice(0, MAX_IMPORTERS),
    unchecked: served.slice(MAX_IMPORTERS).map((p) => context.workspace.relative(p)),
    ...(elsewhere.length ? { elsewhere } : {}),
    ...(left > 0 || found.truncated
      ? { incomplete: `${left > 0 ? left : "some"} files farther away were not read` }
      : {}),
    ...(unresolved.length ? { unresolved } : {}),
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

/** One import of a script or Python file, as far as lspgate resolved it. */
interface ImportRef {
  specifier: string;
  /** An `export … from`: what it imports it passes on. */
  exported: boolean;
  /** A relative script import, matched by path. */
  relative: boolean;
  /** The workspace files it names. */
  files: string[];
  /** Not resolved: the names it may stand for (its last part, the names imported from it). */
  unresolved?: { names: string[]; within?: string; script: boolean };
}

/** A script's or Python file's imports, resolved; undefined for other languages. */
async function importRefs(
  resolver: ImportResolver,
  importer: string,
  text: string,
): Promise<ImportRef[] | undefined> {
  if (SCRIPT.test(importer)) {
    const refs: ImportRef[] = [];
    for (const { specifier, exported } of scriptImports(text)) {
      const ref = { specifier, exported, relative: false, files: [] };
      if (specifier.startsWith(".")) {
        refs.push({ ...ref, relative: true });
        continue;
      }
      const found = await resolver.script(importer, specifier);
      const last = specifier.replace(SCRIPT, "").split("/").at(-1) ?? "";
      refs.push({
        ...ref,
        files: found.kind === "file" ? [found.path] : [],
        ...(found.kind === "unresolved"
          ? { unresolved: { names: [last], within: found.within, script: true } }
          : {}),
      });
    }
    return refs;
  }
  if (!PYTHON.test(importer)) return undefined;
  const refs: ImportRef[] = [];
  for (const { module, names, exported } of pythonImports(text)) {
    const found = await resolver.python(importer, module, names);
    const unresolved = !found.found && !module.startsWith(".");
    refs.push({
      specifier: module,
      exported,
      relative: false,
      files: found.files,
      ...(unresolved
        ? { unresolved: { names: [module.split(".").at(-1)!, ...names], script: false } }
        : {}),
    });
  }
  return refs;
}

/**
 * Whether a file with these imports uses `target` (see uses()), and the unresolved imports that
 * may name it when none is known to.
 */
async function refsUse(
  resolver: ImportResolver,
  importer: string,
  refs: ImportRef[],
  target: string,
): Promise<{ use?: "imports" | "reexports"; unresolved?: string[] }> {
  const folderModule = FOLDER_MODULES.has(stemOf(importer));
  let use: "imports" | "reexports" | undefined;
  const maybe: ImportRef[] = [];
  for (const ref of refs) {
    const named = ref.relative
      ? names(importer, ref.specifier, target)
      : ref.files.includes(target);
    if (named) {
      if (ref.exported || folderModule) return { use: "reexports" };
      use = "imports";
    } else if (ref.unresolved && mayName(ref.unresolved, target)) {
      // An installed package of that name is what it names (checked only now: it reads the disk).
      if (ref.unresolved.script && await resolver.installed(importer, ref.specifier)) continue;
      maybe.push(ref);
    }
  }
  if (use || maybe.length === 0) return { use };
  const passes = folderModule || maybe.some((ref) => ref.exported);
  return { use: passes ? "reexports" : "imports", unresolved: maybe.map((ref) => ref.specifier) };
}

/** Whether an import lspgate could not resolve may name `target`: by its name or its folder's. */
function mayName(ref: { names: string[]; within?: string }, target: string): boolean {
  if (ref.within !== undefined && target.startsWith(`${ref.within}/`)) return true;
  const parts = target.split("/");
  const called = new Set([moduleName(target), stemOf(target), parts.at(-2)]);
  return ref.names.some((name) => called.has(name));
}

/**
 * Whether `importer` (its text) uses `target`: "reexports" when what it imports from it is passed
 * on (an `export … from` statement, an import whose binding it exports; any import of a folder
 * module such as __init__.py or mod.rs, which stands for its package), "imports" for a plain
 * import, undefined for none.
 */
export function uses(
  importer: string,
  text: string,
  target: string,
): "imports" | "reexports" | undefined {
  const folderModule = FOLDER_MODULES.has(stemOf(importer));
  if (SCRIPT.test(importer) && SCRIPT.test(target)) {
    let use: "imports" | "reexports" | undefined;
    for (const { specifier, exported } of scriptImports(text)) {
      if (!names(importer, specifier, target)) continue;
      if (exported || folderModule) return "reexports";
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
  for (const { specifier } of scriptImports(text)) {
    if (specifier.startsWith(".")) found.push(join(dirname(importer), specifier));
  }
  return found;
}

/**
 * Whether a script's relative import specifier names `target` (with or without its extension, a
 * folder standing for its index); non-relative ones are ImportResolver's.
 */
function names(importer: string, specifier: string, target: string): boolean {
  const bare = target.replace(SCRIPT, "");
  const forms = new Set([bare]);
  if (stemOf(target) === "index") forms.add(dirname(target));
  if (!specifier.startsWith(".")) return false;
  const resolved = join(dirname(importer), specifier).replace(/\/$/, "");
  return forms.has(resolved) || forms.has(resolved.replace(SCRIPT, ""));
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
