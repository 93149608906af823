// What a move's import updates (rename_file) cover. A helper's finds: pyright, which offers no
// workspace/willRenameFiles, moved pkg/util.py with "0 edits in 1 file (applied)" and broke
// pkg/main.py; typescript-language-server left packages/b's import of packages/a unchanged (another
// project), and without a jsconfig.json updated 0 of semver's 11 importers in a fresh session.
import { basename, dirname, extname } from "../posix_path.ts";
import type { CoverageAnswer } from "../../adapters/coverage.ts";
import { nameAsWord } from "../../adapters/name_coverage.ts";
import { projectCoverage, withReadiness } from "./coverage.ts";
import type { QueryDocument } from "./document.ts";
import { moduleName } from "./importers.ts";
import { waitForProject } from "./readiness.ts";
import type { ActionContext } from "./types.ts";
import { workspaceProjects } from "./workspace_projects.ts";

/** The method a server updates imports through on a move. */
export const WILL_RENAME = "workspace/willRenameFiles";
/** Most files read for the module's name where the server updates no import. */
const MAX_READ = 2_000;
/** Enough files found to say so (and name them). */
const ENOUGH = 3;
/** Servers whose language imports a folder, not a file (a Go package): its name stands for it. */
const FOLDER_IMPORTS = new Set(["gopls"]);

/**
 * Call before asking the server for the move's edits. Where it offers WILL_RENAME, the coverage of
 * a workspace-wide question about the module's name (the hook may first make the server see the
 * whole project; other projects holding the name make it partial); where it does not, partial when
 * files of its languages hold the module's name as a word: their imports are left as they are.
 * `target`: where the file moves (absolute).
 */
export async function moveCoverage(
  context: ActionContext,
  doc: QueryDocument,
  target: string,
): Promise<CoverageAnswer> {
  let name = moduleName(doc.path);
  if (FOLDER_IMPORTS.has(doc.lease.pick.adapter.id)) {
    // A file moved within its folder stays in its package: no import names it.
    if (dirname(target) === dirname(doc.path)) return { partial: false };
    name = basename(dirname(doc.path));
  }
  if (doc.client.supports(WILL_RENAME)) {
    const ready = await waitForProject(context, doc.client, "workspace");
    const { adapter, root } = doc.lease.pick;
    const coverage = await projectCoverage(context, {
      adapter,
      root,
      client: doc.client,
      uri: doc.uri,
      name,
    });
    return withReadiness(coverage, ready);
  }
  const unable = `${doc.server} does not update imports on a move (it offers no ${WILL_RENAME})`;
  if (!name) return { partial: true, reason: unable };
  const holding = await filesHolding(context, doc, name);
  if (holding.files.length > 0) {
    const named = holding.files.map((f) => context.workspace.relative(f)).join(", ");
    return {
      partial: true,
      reason: `${unable}; \`${name}\` is a word in ${named}` +
        `${holding.files.length >= ENOUGH ? ", …" : ""}, whose imports of ${doc.rel} would be ` +
        "left as they are",
    };
  }
  if (holding.unread > 0) {
    return {
      partial: true,
      reason: `${unable}; lspgate did not read ${holding.unread} files of the workspace for ` +
        `\`${name}\``,
    };
  }
  return { partial: false };
}

/** The workspace's files of `doc`'s languages, other than it, that hold `name` as a word. */
async function filesHolding(
  context: ActionContext,
  doc: QueryDocument,
  name: string,
): Promise<{ files: string[]; unread: number }> {
  const extensions = new Set(
    Object.keys(doc.lease.pick.adapter.languages).map((e) => e.toLowerCase()),
  );
  const list = await workspaceProjects(context);
  const word = nameAsWord(name);
  const files: string[] = [];
  const seen = new Set<string>([doc.path]);
  let read = 0;
  let unread = list.truncated ? 1 : 0;
  for (const project of list.projects) {
    if (!Object.keys(project.adapter.languages).some((e) => extensions.has(e.toLowerCase()))) {
      continue;
    }
    for (const file of project.files) {
      if (files.length >= ENOUGH) return { files, unread: 0 };
      if (seen.has(file) || !extensions.has(extname(file).toLowerCase())) continue;
      seen.add(file);
      if (read >= MAX_READ) {
        unread++;
        continue;
      }
      read++;
      const text = await context.workspace.readText(file).catch(() => undefined);
      if (text === undefined || word.test(text)) files.push(file);
    }
  }
  return { files, unread };
}
