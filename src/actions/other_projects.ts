// Uses of a name in the workspace's other projects, which the asked server never searches: a
// package beside it (packages/app beside packages/core), the project around it (scripts/ of the
// root), a nested module (tools/go.mod). Found by a helper: references to `greet` from core said
// "2 references in 1 file", complete, and its applied rename broke app and scripts.
import type { CoverageAnswer } from "../../adapters/coverage.ts";
import { nameAsWord } from "../../adapters/name_coverage.ts";
import type { Adapter } from "../servers/adapter.ts";
import type { ActionContext } from "./types.ts";
import { workspaceProjects } from "./workspace_projects.ts";

/**
 * Most files of other projects read for the name; past them the answer says it did not look
 * (~20 µs a file here: 2,000 is ~40 ms, beside a references question's own tens of ms).
 */
const MAX_READ = 2_000;
/** Enough files found to say so (and name a few). */
const ENOUGH = 3;

/**
 * What a build wrote, not code of the project: declarations emitted beside a package's output, and
 * CMake's and bundlers' output folders (CMake's compiler probes are C sources of their own).
 */
const GENERATED = /\.d\.[cm]?ts$|\/(CMakeFiles|dist)\//;

/**
 * Servers that analyse every file under their root, a nested project's too (pyright and
 * basedpyright read the whole folder unless their config excludes it): a project nested inside
 * theirs is searched by them.
 */
const SEE_NESTED = new Set(["pyright", "basedpyright"]);

/**
 * Whether files of other projects in the workspace, of a language `adapter` serves too, hold `name`
 * as a whole word: they are not searched by the server at `root`, so an answer without them may
 * miss uses (partial), named by a few of those files. Reads at most MAX_READ files.
 */
export async function otherProjectsHolding(
  context: ActionContext,
  target: { adapter: Adapter; root: string; name: string },
  readText: (path: string) => Promise<string | undefined>,
): Promise<CoverageAnswer> {
  const { adapter, root, name } = target;
  // Go exports only names that begin with a capital: another module cannot name any other.
  if (adapter.id === "gopls" && !/^\p{Lu}/u.test(name)) return { partial: false };
  const extensions = new Set(Object.keys(adapter.languages).map((e) => e.toLowerCase()));
  const own = `${adapter.id}@${root}`;
  const list = await workspaceProjects(context);
  const others = list.projects.filter((project) =>
    project.key !== own &&
    Object.keys(project.adapter.languages).some((e) => extensions.has(e.toLowerCase())) &&
    !(SEE_NESTED.has(adapter.id) && project.root.startsWith(root + "/"))
  );
  if (others.length === 0) return { partial: false };
  const word = nameAsWord(name);
  const holding: string[] = [];
  let read = 0;
  let unread = 0;
  for (const project of others) {
    for (const file of project.files) {
      if (holding.length >= ENOUGH) break;
      if (GENERATED.test(file)) continue;
      if (read >= MAX_READ) {
        unread++;
        continue;
      }
      read++;
      const text = await readText(file);
      if (text !== undefined && word.test(text)) holding.push(file);
    }
  }
  const where = (files: string[]) => files.map((f) => context.workspace.relative(f)).join(", ");
  if (holding.length) {
    return {
      partial: true,
      reason: `\`${name}\` is also a word in files of other projects in this workspace, which ` +
        `this server does not search (${where(holding)}${holding.length >= ENOUGH ? ", …" : ""})`,
    };
  }
  if (unread) {
    return {
      partial: true,
      reason: `the workspace's other projects have ${unread} more files lspgate did not read for ` +
        `\`${name}\`, and this server does not search them`,
    };
  }
  return { partial: false };
}
