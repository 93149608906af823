// Declaration files beside the code they describe: a Python stub (`.pyi`), a `.d.ts` typing a
// JavaScript package. A server resolves an import to the declaration there, a symbol of its own,
// so a question asked at the implementation misses every use made through it (a helper's find:
// attrs' `Factory` from _make.py gave 26 references, from a use site 53; date-fns' `toDate` 1 of
// 332, its uses typed by typings.d.ts).
import { extname } from "node:path";
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

/**
 * Whether declaration files of the project (stubs for the Python or JavaScript file asked about)
 * hold `name` as a word: uses that resolve to them are not found from `asked` (partial, naming
 * them). Reads at most MAX_READ of them.
 */
export async function stubsHolding(
  context: ActionContext,
  target: { adapter: Adapter; root: string; name: string; asked: string },
  readText: (path: string) => Promise<string | undefined>,
): Promise<CoverageAnswer> {
  const { adapter, root, name, asked } = target;
  const stub = stubsFor(asked);
  if (!stub) return { partial: false };
  const list = await workspaceProjects(context);
  const files = list.projects.find((p) => p.adapter.id === adapter.id && p.root === root)?.files ??
    [];
  const word = nameAsWord(name);
  const holding: string[] = [];
  let read = 0;
  for (const file of files) {
    if (holding.length > NAMED || read >= MAX_READ) break;
    if (file === asked || !stub.test(file)) continue;
    read++;
    const text = await readText(file);
    if (text !== undefined && word.test(text)) holding.push(file);
  }
  if (holding.length === 0) return { partial: false };
  const named = holding.slice(0, NAMED).map((f) => context.workspace.relative(f)).join(", ");
  return {
    partial: true,
    reason: `\`${name}\` is also declared in ${named}${holding.length > NAMED ? ", …" : ""} ` +
      "(declaration files): uses that resolve to a declaration there are not found from here; " +
      "ask at it too",
  };
}
