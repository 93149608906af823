import { type ProgressUpdate, takeProgressFlag, watchProgress } from "../progress.ts";
import type { Response, Session } from "../session.ts";

export type { Gate } from "../daemon/remote_session.ts";

/** What answering with progress needs of a gate: a daemon connection relays progress itself. */
export interface ProgressGate {
  handle(raw: unknown): Promise<Response>;
  /** Answers with the progress lines the daemon sends for this request (a daemon connection). */
  request?(raw: unknown, progress: (p: unknown) => void): Promise<Response>;
}

/**
 * Answers one request through a session or a daemon connection; with `"progress": true` in the
 * request, `onProgress` hears what the servers are doing while it waits (starting, indexing).
 */
export function handleWithProgress(
  gate: ProgressGate,
  raw: unknown,
  onProgress: (update: ProgressUpdate) => void,
): Promise<Response> {
  const { request, progress } = takeProgressFlag(raw);
  if (!progress) return gate.handle(request);
  if (gate.request) {
    // The daemon samples its own servers and sends progress lines for this request.
    return gate.request(raw, (update) => onProgress(update as ProgressUpdate));
  }
  const session = gate as Session;
  const answer = session.handle(request);
  if (session.manager) watchProgress(session.manager, answer, onProgress);
  return answer;
}
