// Uses of a name inside files that embed code of another format: Vue, Svelte and Astro components
// importing a TypeScript export, Jupyter notebooks a Python one. tsserver and pyright search no such
// file (a prober's find: src/util.ts's greet, imported by src/App.vue and src/Hello.svelte, renamed
// as "1 edit in 1 file (applied)", complete, and both components broke).
import type { CoverageAnswer } from "../../adapters/coverage.ts";
import { nameAsWord } from "../../adapters/name_coverage.ts";
import type { Adapter } from "../servers/adapter.ts";
import type { ActionContext } from "./types.ts";
import { workspaceProjects } from "./workspace_projects.ts";

/** Most embedding files read for the name; past them the answer says it did not look. */
const MAX_READ = 2_000;
/** Enough files found to say so (and name a few). */
const ENOUGH = 3;

/** The formats embedding code of a language, by one of that language's extensions. */
const EMBEDDERS: readonly { serves: string; formats: readonly string[] }[] = [
  { serves: ".ts", formats: [".vue", ".svelte", ".astro"] },
  { serves: ".js", formats: [".vue", ".svelte", ".astro"] },
  { serves: ".py", formats: [".ipynb"] },
];

/**
 * Whether the workspace's files of formats that embed code `adapter` serves (components for
 * TypeScript and JavaScript, notebooks for Python) hold `name` as a whole word: the server does
 * not search them, so an answer without them may miss uses (partial, naming a few). Reads at most
 * MAX_READ files.
 */
export async function embeddedHolding(
  context: ActionContext,
  target: { adapter: Adapter; name: string },
  readText: (path: string) => Promise<string | undefined>,
): Promise<CoverageAnswer> {
  const { adapter, name } = target;
  const served = new Set(Object.keys(adapter.languages).map((e) => e.toLowerCase()));
  const formats = new Set(EMBEDDERS.filter((e) => served.has(e.serves)).flatMap((e) => e.formats));
  if (formats.size === 0) return { partial: false };
  const list = await workspaceProjects(context);
  const files = list.embedded.filter((file) =>
    formats.has(file.slice(file.lastIndexOf(".")).toLowerCase())
  );
  const word = nameAsWord(name);
  const holding: string[] = [];
  let read = 0;
  for (const file of files) {
    if (holding.length >= ENOUGH || read >= MAX_READ) break;
    read++;
    const text = await readText(file);
    if (text !== undefined && word.test(text)) holding.push(file);
  }
  if (holding.length) {
    const named = holding.map((f) => context.workspace.relative(f)).join(", ");
    return {
      partial: true,
      reason: `\`${name}\` is also a word in ${named}${holding.length >= ENOUGH ? ", …" : ""}, ` +
        "whose embedded code this server does not search (components, notebooks)",
    };
  }
  if (read < files.length) {
    return {
      partial: true,
      reason: `the workspace has ${files.length - read} more components or notebooks lspgate ` +
        `did not read for \`${name}\`, and this server does not search them`,
    };
  }
  return { partial: false };
}
