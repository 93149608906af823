import type { ServerClient } from "../lsp/server_client.ts";
import type { ActionContext } from "./types.ts";
import { unresolvedScriptImport } from "./script_imports_unresolved.ts";

/**
 * What a query reads: one file and what it imports, or the whole workspace (references, workspace
 * symbols, renames, hierarchies).
 */
export type QueryScope = "file" | "workspace";

/**
 * Waits (bounded) for the server to load its project; false when it has not yet, or when it said
 * it could not (an answer about a project it failed to load is partial, never "not found"). A
 * server whose readiness gates only workspace queries answers a file query at once.
 */
export async function waitForProject(
  context: ActionContext,
  client: ServerClient,
  scope: QueryScope,
  uri?: string,
): Promise<boolean> {
  const ready = scope === "file" && client.options.readinessScope === "workspace"
    ? true
    : await client.waitReady(context.readyTimeoutMs, context.signal);
  return ready && loadProblem(client, scope, uri) === undefined;
}

/**
 * Why the server's answer about `uri` (a file query) or the workspace may miss code: it could not
 * load the project, or could not resolve an import of that file (of any file, for a workspace
 * query).
 */
export function loadProblem(
  client: ServerClient,
  scope: QueryScope,
  uri?: string,
): string | undefined {
  const info = client.info();
  if (info.projectProblem !== undefined) return info.projectProblem;
  const imports = info.brokenImports ?? {};
  const name = (key: string) => decodeURIComponent(key.slice(key.lastIndexOf("/") + 1));
  if (scope === "file") return uri && imports[uri] ? imports[uri] : undefined;
  const [first] = Object.entries(imports);
  return first ? `${name(first[0])}: ${first[1]}` : undefined;
}

/** How long an answer that found nothing waits for its file's diagnostics (emptyAnswerProblem). */
const EMPTY_ANSWER_CHECK_MS = 3_000;

/**
 * Called when an answer about `uri` found nothing: why that may be "don't know" rather than
 * "none", or undefined. An import of that file the server could not resolve (or a project it
 * could not load) is learned from its diagnostics; a server that is only asked for them (pyright
 * pulls) says nothing of its imports until asked, and a pushing one may not have pushed for this
 * file yet (a server just restarted for the memory budget). So they are asked now, bounded: an
 * empty answer about a name from a broken import then says so rather than "not found".
 */
export async function emptyAnswerProblem(
  context: ActionContext,
  client: ServerClient,
  uri: string,
): Promise<string | undefined> {
  const known = loadProblem(client, "file", uri);
  if (known !== undefined) return known;
  try {
    const timeoutMs = Math.min(EMPTY_ANSWER_CHECK_MS, context.timeoutMs);
    await client.diagnostics(uri, timeoutMs, context.signal);
  } catch {
    // Not learned (no diagnostics in time): the answer stands as the server gave it.
  }
  return loadProblem(client, "file", uri) ??
    await unresolvedScriptImport(context, client, uri);
}

/** Why an answer is partial for its server's loading (details.partialReason's words). */
export function loadingReason(problem?: string): string {
  return problem !== undefined
    ? `the server could not load all of the project: ${problem}`
    : "the server was still loading the project";
}

/** The sentence an answer carries when the server was still loading, or failed to load. */
export function readinessNote(
  ready: boolean,
  client?: ServerClient,
  query?: { scope: QueryScope; uri?: string },
  known?: string,
): string {
  if (ready) return "";
  const problem = known ?? (client && loadProblem(client, query?.scope ?? "workspace", query?.uri));
  if (problem !== undefined) {
    return `\n\nNote: ${client!.options.serverName} could not load all of the project, so this ` +
      `answer may be partial: ${problem}`;
  }
  return "\n\nNote: the server was still loading the project; this answer may be partial. Ask again.";
}
