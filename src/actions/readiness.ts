import type { ServerClient } from "../lsp/server_client.ts";
import type { ActionContext } from "./types.ts";

/** Waits (bounded) for the server to load its project; false when it has not yet. */
export function waitForProject(context: ActionContext, client: ServerClient): Promise<boolean> {
  return client.waitReady(context.readyTimeoutMs, context.signal);
}

/** The sentence an answer carries when the server was still loading. */
export function readinessNote(ready: boolean): string {
  return ready
    ? ""
    : "\n\nNote: the server was still loading the project; this answer may be partial. Ask again.";
}
