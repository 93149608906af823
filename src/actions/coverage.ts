// Whether a workspace-wide answer (references, rename, implementations, incoming calls, workspace
// symbols) covers every file of the project its server serves, or which it misses and why: an
// agent shown a complete-looking list renames, ships, and breaks the callers it was never shown.
import { dirname } from "../posix_path.ts";
import * as z from "../zod.ts";
import { COVERAGE_HOOKS, type CoverageAnswer, JUDGING_HOOKS } from "../../adapters/coverage.ts";
import { LspGateError } from "../errors.ts";
import type { ServerClient } from "../lsp/server_client.ts";
import type { Adapter } from "../servers/adapter.ts";
import { toFileUrl } from "../servers/uri.ts";
import type { QueryDocument } from "./document.ts";
import { TextCache } from "./text_cache.ts";
import type { ActionContext } from "./types.ts";
import { FILES_SCANNED, workspaceProjects } from "./workspace_projects.ts";
import { beyondProject } from "./beyond_project.ts";
import { isLocalAt } from "./local_name.ts";
import { loadingReason } from "./readiness.ts";

export type { CoverageAnswer };

/** The project a workspace-wide question is asked of, and its server. */
export interface CoverageTarget {
  adapter: Adapter;
  /** The project's root: absolute, real. */
  root: string;
  client: ServerClient;
  /** A document open in the server. */
  uri: string;
  /** The project's files, where the caller has walked the workspace already. */
  files?: readonly string[];
  /** The name asked about, where there is one (see CoverageContext.name). */
  name?: string;
  /** Where in `uri` it was asked about, as the server counts (a local's declaration, maybe). */
  at?: { line: number; character: number };
}

/** The `allow_partial` input field of the edits built on a workspace-wide answer. */
export const allowPartialField = z.optional(z.boolean());

/**
 * What a workspace-wide answer of `client`, serving `adapter` at `root`, covers. Runs the
 * adapter's coverage hook (adapters/coverage.ts), which may first make the server see the whole
 * project; call it before asking the question.
 */
export async function projectCoverage(
  context: ActionContext,
  target: CoverageTarget,
): Promise<CoverageAnswer> {
  const { adapter, root, client, uri, files, name, at } = target;
  const readText = async (path: string) => {
    // The project's own config files (pyproject.toml, go.mod, …), read by every question, are
    // kept while unchanged (text_cache.ts); the sources some hooks read are not.
    if (dirname(path) === root) {
      return (await TextCache.of(context).linesOf(toFileUrl(path)))?.text;
    }
    try {
      return await context.workspace.readText(await context.workspace.resolve(path));
    } catch {
      return undefined;
    }
  };
  const hook = COVERAGE_HOOKS[adapter.id];
  let truncated = false;
  // A hand-over others may wait on runs on; this question stops waiting when it is cancelled.
  const answer = !hook ? { partial: false } : await untilCancelled(
    context.signal,
    hook({
      root,
      files: async () => {
        if (files) return files;
        const list = await workspaceProjects(context);
        truncated = list.truncated;
        return list.projects.find((p) => p.adapter.id === adapter.id && p.root === root)?.files ??
          [];
      },
      client,
      uri,
      readText,
      name,
      relative: (path) => context.workspace.relative(path),
      signal: context.signal,
    }),
  );
  let result = answer;
  if (!answer.partial && !truncated && name) {
    // The project's own files are covered: what of the workspace's other projects, and of the
    // declaration files that stand in for the code asked about?
    result = await untilCancelled(
      context.signal,
      beyondProject(context, { adapter, root, name, uri }, readText),
    );
  } else if (!answer.partial && truncated) {
    // Said so for every hook that read the list: tsserver was handed only those files; clangd's
    // and gopls's were checked against what their server sees only in those.
    result = {
      partial: true,
      reason: `the workspace has more than ${FILES_SCANNED} files, and lspgate looked at those ` +
        "only",
    };
  }
  // What is missed lies in other files: a function's own name cannot be used there.
  const others = result !== answer || OTHER_FILES_HOOKS.has(adapter.id);
  if (result.partial && others && at && await isLocalAt(context, client, uri, at)) {
    return { partial: false };
  }
  return result;
}

/**
 * The hooks whose every partial answer is about files other than the one asked in (left out by a
 * config, a build, an index): rust-analyzer's may be about the file itself, deno's about its
 * server not started.
 */
const OTHER_FILES_HOOKS = new Set(["typescript", "pyright", "basedpyright", "gopls", "clangd"]);

/**
 * The coverage of a workspace-wide question asked from an open document: its server's project.
 * `name`: the symbol asked about, where known.
 */
export function documentCoverage(
  context: ActionContext,
  doc: QueryDocument,
  position?: { word?: string; server: { line: number; character: number } },
): Promise<CoverageAnswer> {
  const { adapter, root } = doc.lease.pick;
  return projectCoverage(context, {
    adapter,
    root,
    client: doc.client,
    uri: doc.uri,
    name: position?.word,
    at: position?.server,
  });
}

/**
 * documentCoverage() for a question about to be asked of `doc`'s server, resolving when the
 * question may go out: once the hook has run where it prepares the server (hands tsserver the
 * project's files, starts deno's), at once where it only judges. Then it runs while the server
 * answers: pyright's include and exclude matched against every file took ~3 ms of each references
 * question on pygments, before the question was sent.
 */
export async function coverageForQuestion(
  context: ActionContext,
  doc: QueryDocument,
  position?: { word?: string; server: { line: number; character: number } },
): Promise<{ coverage: Promise<CoverageAnswer> }> {
  const coverage = documentCoverage(context, doc, position);
  // Awaited by the caller after its question: a failed question must not leave it unhandled.
  coverage.catch(() => {});
  if (!JUDGING_HOOKS.has(doc.lease.pick.adapter.id)) await coverage;
  return { coverage };
}

/**
 * Coverage and readiness as one: not loaded yet is partial too, and so is a project the server
 * could not load (`problem`, in its words: readiness.ts's loadProblem).
 */
export function withReadiness(
  coverage: CoverageAnswer,
  ready: boolean,
  problem?: string,
): CoverageAnswer {
  if (ready || coverage.partial) return coverage;
  return { partial: true, reason: loadingReason(problem) };
}

/** The sentence a partial answer carries; empty for a complete one. */
export function coverageNote(coverage: CoverageAnswer): string {
  return coverage.partial && coverage.reason
    ? `\n\nNote: this answer is partial: ${coverage.reason}.`
    : "";
}

/** The details a workspace-wide answer carries about its coverage (and the server's readiness). */
export function coverageDetails(
  coverage: CoverageAnswer,
  ready = true,
  problem?: string,
): Record<string, unknown> {
  const { partial, reason } = withReadiness(coverage, ready, problem);
  return partial ? { partial: true, ...(reason ? { partialReason: reason } : {}) } : { partial };
}

/**
 * Refuses an edit built on a partial answer unless the caller said `allow_partial: true`: it would
 * leave the uses the server did not see unchanged.
 */
export function refusePartial(
  coverage: CoverageAnswer,
  input: { allow_partial?: boolean },
  what: string,
): void {
  if (!coverage.partial || input.allow_partial === true) return;
  throw new LspGateError(
    "ACTION_NOT_ALLOWED",
    `Not applied: the ${what} is built on a partial answer (${coverage.reason ?? "unknown"}), ` +
      "so uses the server did not see would be left unchanged; nothing was written. Send " +
      "allow_partial: true to apply it anyway.",
    { partial: true, reason: coverage.reason, allow: "allow_partial" },
  );
}

function untilCancelled<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function cancelled(): LspGateError {
  return new LspGateError("CANCELLED", "the request was cancelled");
}
