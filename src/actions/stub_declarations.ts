// Declaration files beside the code they describe: a Python stub (`.pyi`), a `.d.ts` typing a
// JavaScript package. A server resolves an import to the declaration there, a symbol of its own,
// so a question asked at the implementation misses every use made through it (a helper's find:
// attrs' `Factory` from _make.py gave 26 references, from a use site 53; date-fns' `toDate` 1 of
// 332, its uses typed by typings.d.ts). Asked at the declaration, the implementation's own
// definition and uses are missed the same way (a prober's find: a rename at lib/merge.d.ts left
// lib/merge.js's `merge` as it was, and the package no longer imported).
import { dirname, extname } from "../posix_path.ts";
import type { CoverageAnswer } from "../../adapters/coverage.ts";
import { nameAsWord } from "../../adapters/name_coverage.ts";
import type { Adapter } from "../servers/adapter.ts";
import type { ActionContext } from "./types.ts";
import { workspaceProjects } from "./workspace_projects.ts";

/** Most declaration files read for the name. */
const MAX_READ = 200;
/** How many a reason names. */
const NAMED = 3;

/** The declaration files that can stand in for code of `file`'s kind, if any. */
function stubsFor(file: string): RegExp | undefined {
  const extension = extname(file).toLowerCase();
  if (extension === ".py") return /\.pyi$/i;
  if (/^\.[cm]?jsx?$/.test(extension)) return /\.d\.[cm]?ts$/i;
  return undefined;
}

/** The code a declaration file types, beside it and of its name (lib/merge.d.ts: lib/merge.js). */
function implementationsOf(file: string): string[] {
  const declaration = /^(.*)\.d\.[cm]?ts$/i.exec(file);
  if (declaration) return [".js", ".mjs", ".cjs"].map((extension) => declaration[1] + extension);
  if (/\.pyi$/i.test(file)) return [file.slice(0, -1)];
  return [];
}

/**
 * Whether declaration files of the project (stubs for the Python or JavaScript file asked about)
 * hold `name` as a word: uses that resolve to them are not found from `asked` (partial, naming
 * them); asked at a declaration file, whether the code it types holds it. Reads at most MAX_READ
 * stubs, those beside `asked` first; past them, unread stubs make it partial too.
 */
export async function stubsHolding(
  context: ActionContext,
  target: { adapter: Adapter; root: string; name: string; asked: string },
  readText: (path: string) => Promise<string | undefined>,
): Promise<CoverageAnswer> {
  const { adapter, root, name, asked } = target;
  const word = nameAsWord(name);
  for (const file of implementationsOf(asked)) {
    const text = await readText(file);
    if (text === undefined || !word.test(text)) continue;
    return {
      partial: true,
      reason: `\`${name}\` is also a word in ${context.workspace.relative(file)}, the code the ` +
        "declaration file asked at types: its definition and uses there are not found from a " +
        "declaration; ask at it too",
    };
  }
  const stub = stubsFor(asked);
  if (!stub) return { partial: false };
  const list = await workspaceProjects(context);
  const files = list.projects.find((p) => p.adapter.id === adapter.id && p.root === root)?.files ??
    [];
  const stubs = files.filter((file) => file !== asked && stub.test(file));
  // The stub of the file asked about lies beside it: read first, whatever else there is.
  const folder = dirname(asked);
  stubs.sort((a, b) => Number(dirname(b) === folder) - Number(dirname(a) === folder));
  const holding: string[] = [];
  let read = 0;
  for (const file of stubs) {
    if (holding.length > NAMED || read >= MAX_READ) break;
    read++;
    const text = await readText(file);
    if (text !== undefined && word.test(text)) holding.push(file);
  }
  if (holding.length === 0) {
    if (read === stubs.length) return { partial: false };
    return {
      partial: true,
      reason: `the project has ${stubs.length - read} more declaration files lspgate did not ` +
        `read for \`${name}\`: uses that resolve to a declaration there are not found from here`,
    };
  }
  const named = holding.slice(0, NAMED).map((f) => context.workspace.relative(f)).join(", ");
  return {
    partial: true,
    reason: `\`${name}\` is also declared in ${named}${holding.length > NAMED ? ", …" : ""} ` +
      "(declaration files): uses that resolve to a declaration there are not found from here; " +
      "ask at it too",
  };
}
