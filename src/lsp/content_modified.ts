// ContentModified (-32801): the server dropped a request because the document changed while it
// worked (rust-analyzer answers so while it re-analyses). Editors ask again; so does lspgate, a few
// times within the request's own time budget, instead of passing the error on (issue 17).
import { LspGateError } from "../errors.ts";

/** The JSON-RPC code of ContentModified. */
export const CONTENT_MODIFIED = -32801;

/** Pauses before each new attempt, in ms. */
const BACKOFF_MS = [25, 100, 250];

/** Requests that change state or end a session: never sent twice. */
const NOT_RETRIED = new Set(["initialize", "shutdown", "workspace/executeCommand"]);

/** True when `error` is the server's ContentModified. */
export function isContentModified(error: unknown): boolean {
  return error instanceof LspGateError && error.code === "LSP_ERROR" &&
    (error.data as { code?: unknown } | undefined)?.code === CONTENT_MODIFIED;
}

/**
 * After `first` (the error of the first attempt): sends again with `send(timeoutMs left)` after a
 * short pause while the server answers ContentModified, as long as attempts and `timeoutMs` last;
 * any other error, or the last one, is thrown.
 */
export async function retryContentModified<R>(
  method: string,
  timeoutMs: number,
  send: (timeoutMs: number) => Promise<R>,
  signal: AbortSignal | undefined,
  first: unknown,
): Promise<R> {
  const deadline = performance.now() + timeoutMs;
  let error = first;
  for (const pause of BACKOFF_MS) {
    if (
      !isContentModified(error) || NOT_RETRIED.has(method) || signal?.aborted ||
      performance.now() + pause >= deadline
    ) break;
    await new Promise((resolve) => setTimeout(resolve, pause));
    try {
      return await send(Math.max(1, Math.round(deadline - performance.now())));
    } catch (next) {
      error = next;
    }
  }
  throw error;
}
