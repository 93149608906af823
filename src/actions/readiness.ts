import type { ServerClient } from "../lsp/server_client.ts";
import type { ActionContext } from "./types.ts";

/**
 * What a query reads: one file and what it imports, or the whole workspace (references, workspace
 * symbols, renames, hierarchies).
 */
export type QueryScope = "file" | "workspace";

/**
 * Waits (bounded) for the server to load its project; false when it has not yet. A server whose
 * readiness gates only workspace queries answers a file query at once.
 */
export function waitForProject(
  context: ActionContext,
  client: ServerClient,
  scope: QueryScope,
): Promise<boolean> {
  if (scope === "file" && client.options.readinessScope === "workspace") {
    return Promise.resolve(true);
  }
  return client.waitReady(context.readyTimeoutMs, context.signal);
}

/** The sentence an answer carries when the server was still loading. */
export function readinessNote(ready: boolean): string {
  return ready
    ? ""
    : "\n\nNote: the server was still loading the project; this answer may be partial. Ask again.";
}
