// Which Go files a gopls rooted at a go.work folder searches. gopls loads the modules go.work's
// `use` directives name as one view; a module under the folder that the list leaves out (its own
// go.mod, reaching the others by a `replace`) is in no package of that view, and asked from one
// of its files gopls answers from a view of that module alone, which holds the modules of go.work
// only as far as it imports them (measured with gopls v0.23: references to a.Foo asked from a
// missed c's call, asked from c they missed b's; an applied rename broke c's build).
import { dirname, join, resolve } from "../src/posix_path.ts";
import type { CoverageContext } from "./coverage.ts";

/** The module folders of a go.mod or go.work's directives `verb` (`use`, `replace`), in order. */
function directives(text: string, verb: string): string[][] {
  const found: string[][] = [];
  let block = false;
  for (const line of text.split("\n")) {
    const tokens = tokensOf(line);
    if (block) {
      if (tokens[0] === ")") block = false;
      else if (tokens.length > 0) found.push(tokens.filter((t) => t !== ")"));
      if (tokens.at(-1) === ")") block = false;
    } else if (tokens[0] === verb) {
      if (tokens[1] === "(") {
        block = tokens.at(-1) !== ")";
        const inline = tokens.slice(2).filter((t) => t !== ")");
        if (inline.length > 0) found.push(inline);
      } else if (tokens.length > 1) found.push(tokens.slice(1));
    }
  }
  return found;
}

/** A go.mod line's tokens, quotes removed, without its `//` comment. */
function tokensOf(line: string): string[] {
  const tokens: string[] = [];
  for (const [token] of line.matchAll(/"(?:[^"\\]|\\.)*"|`[^`]*`|\/\/.*|[()]|[^\s()"`]+/g)) {
    if (token.startsWith("//")) break;
    if (token.startsWith('"')) {
      try {
        tokens.push(JSON.parse(token));
      } catch {
        tokens.push(token.slice(1, -1));
      }
    } else if (token.startsWith("`")) tokens.push(token.slice(1, -1));
    else tokens.push(token);
  }
  return tokens;
}

/** The folders go.work at `dir` uses, absolute: `use ./a` and `use ( ./a ./b )`. */
export function workUses(text: string, dir: string): string[] {
  return directives(text, "use").map(([path]) => resolve(dir, path));
}

/** A go.mod's `replace` directives that point at a folder: module path → absolute folder. */
export function localReplaces(text: string, dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const tokens of directives(text, "replace")) {
    const arrow = tokens.indexOf("=>");
    const target = tokens[arrow + 1];
    if (arrow < 1 || !target || !/^\.{0,2}\//.test(target)) continue;
    found.set(tokens[0], resolve(dir, target));
  }
  return found;
}

/** The import paths of a Go file: single and grouped imports, named or not. */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");
  // Imports come before the first declaration.
  const head = code.slice(0, code.search(/^(?:func|var|const|type)\b/m) >>> 0);
  for (const [, group, single] of head.matchAll(/\bimport\s*(?:\(([^)]*)\)|[\w.]*\s*"([^"]+)")/g)) {
    if (single !== undefined) found.push(single);
    for (const [, path] of (group ?? "").matchAll(/"([^"]+)"/g)) found.push(path);
  }
  return found;
}

/** What the gopls view answering a question does not search, and what it answers from. */
export interface WorkView {
  files: string[];
  /** The folder gopls answered from alone: a module go.work does not use, or a package's folder
   * in no module. */
  alone?: { folder: string; module: boolean };
}

/**
 * The Go files of `files` that the gopls view answering from `asked` (a file) does not search,
 * when the project's root holds a go.work: asked from a module it uses, the files of the modules
 * it does not use (and of no module); asked from one it does not use, every file outside that
 * module but those of the packages it imports through a local `replace`; asked from a file of no
 * module, every file outside its folder. Undefined without a go.work.
 */
export async function outsideWorkView(
  context: CoverageContext,
  files: readonly string[],
  asked: string,
): Promise<WorkView | undefined> {
  const { root } = context;
  const work = await context.readText(join(root, "go.work"));
  if (work === undefined) return undefined;
  const uses = new Set(workUses(work, root));
  const moduleOf = modulesOf(context, files);
  const own = await moduleOf(asked);
  const left: string[] = [];
  if (own === undefined) {
    // A file of no module: gopls answers from a view of its folder's package alone.
    return {
      files: files.filter((file) => dirname(file) !== dirname(asked)),
      alone: { folder: dirname(asked), module: false },
    };
  }
  if (uses.has(own)) {
    for (const file of files) {
      const module = await moduleOf(file);
      if (module === undefined || !uses.has(module)) left.push(file);
    }
    return { files: left };
  }
  // A module go.work leaves out: its view holds it and the packages it imports.
  const loaded = new Set<string>();
  const replaces = localReplaces((await context.readText(join(own, "go.mod"))) ?? "", own);
  for (const file of files) {
    if ((await moduleOf(file)) !== own) continue;
    for (const path of importsOf((await context.readText(file)) ?? "")) {
      for (const [module, dir] of replaces) {
        if (path === module) loaded.add(dir);
        else if (path.startsWith(module + "/")) loaded.add(join(dir, path.slice(module.length)));
      }
    }
  }
  for (const file of files) {
    if ((await moduleOf(file)) !== own && !loaded.has(dirname(file))) left.push(file);
  }
  return { files: left, alone: { folder: own, module: true } };
}

/** Per file list (the walk's, kept while no file is created or deleted), the go.mod folders. */
const found = new WeakMap<readonly string[], Map<string, Promise<boolean>>>();

/** A file's module: the nearest folder from it up to the root that holds a go.mod. */
function modulesOf(
  context: CoverageContext,
  files: readonly string[],
): (file: string) => Promise<string | undefined> {
  let known = found.get(files);
  if (!known) found.set(files, known = new Map());
  const holds = (dir: string) => {
    let holding = known.get(dir);
    if (!holding) {
      holding = context.readText(join(dir, "go.mod")).then((text) => text !== undefined);
      known.set(dir, holding);
    }
    return holding;
  };
  return async (file) => {
    if (!file.startsWith(context.root + "/")) return undefined;
    for (let dir = dirname(file);; dir = dirname(dir)) {
      if (await holds(dir)) return dir;
      if (dir === context.root || dir === dirname(dir)) return undefined;
    }
  };
}
