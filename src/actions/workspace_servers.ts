import { LspGateError, toLspGateError } from "../errors.ts";
import type { ServerClient } from "../lsp/server_client.ts";
import type { ActionContext } from "./types.ts";
import { projectCoverage } from "./coverage.ts";
import { cannotMatch } from "./symbol_prefilter.ts";
import {
  FILES_SCANNED,
  forgetProjects,
  type WorkspaceProject,
  workspaceProjects,
} from "./workspace_projects.ts";

/** A server to ask a workspace-wide question, held until released. */
export interface WorkspaceServer {
  id: string;
  /** The project's root, workspace-relative. */
  root: string;
  client: ServerClient;
  /** The project it serves. */
  project: WorkspaceProject;
  release(): void;
}

/** The servers to ask, and what the answer must say about the projects it could not ask. */
export interface WorkspaceServers {
  servers: WorkspaceServer[];
  /** Adapters whose running server does not offer the method asked about (not held). */
  unsupported: string[];
  /** Adapters of projects found whose server is not installed. */
  missing: string[];
  /** Projects left unstarted because none of their files can hold a match (symbol_prefilter.ts). */
  skipped: string[];
  /** Sentences for the answer: projects left out, servers that could not be started. */
  notes: string[];
  /** Whether projects that may hold answers were left out. */
  partial: boolean;
  /** Why, in one line each: projects left out, files a server cannot see (see coverage.ts). */
  reasons: string[];
  /** The first error of a server that could not be started, for an answer with no server. */
  failure?: LspGateError;
}

/** Most servers one workspace-wide question starts. */
export const MAX_SERVERS = 8;

/**
 * The servers that can answer for the whole workspace: one per (adapter, project root), each
 * started by opening the file that loads its project (see workspace_projects.ts), at most
 * MAX_SERVERS. A server not installed takes no part (listed in `missing`); a running one that
 * does not offer `method` is listed in `unsupported` instead of being held. With `symbolQuery`
 * (a workspace symbol search), a server not running whose files cannot hold a match is not
 * started (listed in `skipped`; the answer is no less complete).
 */
export async function workspaceServers(
  context: ActionContext,
  options: { method?: string; symbolQuery?: string } = {},
): Promise<WorkspaceServers> {
  const first = await attempt(context, options);
  if (!first.stale) return first.result;
  // A remembered opener is gone (its deletion not heard yet): walk again, once.
  for (const server of first.result.servers) server.release();
  forgetProjects(context.manager);
  return (await attempt(context, options)).result;
}

async function attempt(
  context: ActionContext,
  { method, symbolQuery }: { method?: string; symbolQuery?: string },
): Promise<{ result: WorkspaceServers; stale: boolean }> {
  const list = await workspaceProjects(context);
  cancelled(context);
  const result: WorkspaceServers = {
    servers: [],
    unsupported: [],
    missing: [],
    skipped: [],
    notes: [],
    partial: false,
    reasons: [],
  };
  if (list.truncated) {
    result.notes.push(
      `The workspace has more than ${FILES_SCANNED} files; projects in the files not looked at ` +
        "were not searched.",
    );
    result.partial = true;
    result.reasons.push(`more than ${FILES_SCANNED} files in the workspace`);
  }
  const entries = context.manager.entries();
  const running = new Map(
    entries.flatMap((e) => e.state.kind === "running" ? [[e.key, e.state.client] as const] : []),
  );
  // A server starting or running may have read more than its index (files opened in it, what
  // bash-language-server reads on demand): only one not started is left out.
  const live = new Set(
    entries.filter((e) => e.state.kind === "running" || e.state.kind === "starting").map((e) =>
      e.key
    ),
  );
  const idle = await Promise.all(
    list.projects.map((p) =>
      symbolQuery !== undefined && !live.has(p.key) && p.adapter.symbolIndex
        // A check that fails asks the server, as before.
        ? cannotMatch(context, p.adapter, p.root, symbolQuery).catch(() => false)
        : false
    ),
  );
  cancelled(context);
  const pending: WorkspaceProject[] = [];
  list.projects.forEach((project, i) => {
    const client = running.get(project.key);
    if (idle[i]) {
      result.skipped.push(`${project.adapter.id} (${context.workspace.relative(project.root)})`);
    } else if (method && client && !client.exited && !client.supports(method)) {
      addOnce(result.unsupported, project.adapter.id);
    } else {
      pending.push(project);
    }
  });
  let stale = false;
  // Started together, MAX_SERVERS at most: a server not installed leaves its place to the next.
  while (pending.length > 0 && result.servers.length < MAX_SERVERS) {
    const batch = pending.splice(0, MAX_SERVERS - result.servers.length);
    const leases = await Promise.allSettled(
      batch.map((p) => context.manager.acquire(p.opener, context.signal)),
    );
    leases.forEach((lease, i) => {
      const project = batch[i];
      if (lease.status === "fulfilled") {
        const { client, release } = lease.value;
        if (method && !client.supports(method)) {
          release();
          addOnce(result.unsupported, project.adapter.id);
        } else {
          const root = context.workspace.relative(project.root);
          result.servers.push({ id: project.adapter.id, root, client, release, project });
        }
        return;
      }
      const error = toLspGateError(lease.reason);
      if (error.code === "SERVER_NOT_INSTALLED") return addOnce(result.missing, project.adapter.id);
      if (error.code === "CANCELLED") return;
      // The opener the walk found is no longer there: the caller walks again.
      stale ||= error.code === "FILE_NOT_FOUND" || error.code === "OUTSIDE_WORKSPACE";
      result.failure ??= error;
      result.partial = true;
      const where = `${project.adapter.id} (${context.workspace.relative(project.root)})`;
      result.notes.push(`${where} was not searched: ` + error.message);
      result.reasons.push(`${where} could not be started`);
    });
    if (context.signal.aborted) {
      for (const server of result.servers) server.release();
      cancelled(context);
    }
  }
  if (pending.length > 0) {
    result.notes.push(
      `Only the first ${MAX_SERVERS} projects were searched; search from a file for the others.`,
    );
    result.partial = true;
    result.reasons.push(`only the first ${MAX_SERVERS} projects were searched`);
  }
  await coverServers(context, result);
  return { result, stale };
}

/**
 * Runs each server's coverage hook before the question is asked (it may make the server see its
 * whole project), and says which projects' answers miss files, and why.
 */
async function coverServers(context: ActionContext, result: WorkspaceServers): Promise<void> {
  const answers = await Promise.all(
    result.servers.map((server) =>
      projectCoverage(context, {
        adapter: server.project.adapter,
        root: server.project.root,
        client: server.client,
        uri: context.workspace.toUri(server.project.opener),
        files: server.project.files,
      })
        .catch((error) => ({ partial: true, reason: toLspGateError(error).message }))
    ),
  );
  answers.forEach((answer, i) => {
    if (!answer.partial) return;
    const { id, root } = result.servers[i];
    const reason = `${id} (${root}): ${answer.reason ?? "not every file was searched"}`;
    result.partial = true;
    result.reasons.push(reason);
    result.notes.push(`Partial: ${reason}.`);
  });
}

function addOnce(list: string[], item: string): void {
  if (!list.includes(item)) list.push(item);
}

function cancelled(context: ActionContext): void {
  if (context.signal.aborted) throw new LspGateError("CANCELLED", "the request was cancelled");
}
