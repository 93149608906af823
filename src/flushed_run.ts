// A request's action runs once every change made on disk before the request has reached the
// servers (the watcher's flush); a read-only query may be asked while the flush runs.
import type { ActionNote } from "./actions/types.ts";
import type { WorkspaceWatcher } from "./servers/watcher.ts";

/** Read-only queries asked while the watcher flushes (see runAfterFlush). */
export const ASKED_WHILE_FLUSHING: ReadonlySet<string> = new Set([
  "definition",
  "declaration",
  "type_definition",
  "implementation",
  "references",
  "hover",
  "signature",
  "symbols",
]);

/** What runAfterFlush() needs of the request. */
export interface FlushedRun<T> {
  watcher: WorkspaceWatcher;
  /** Whether the action may be asked while the flush runs (a read-only query). */
  overlap: boolean;
  /** The watcher's flush, cancelled with the request. */
  flush(): Promise<void>;
  /** The request's controller: aborting it aborts every attempt. */
  controller: AbortController;
  /** The answer's notes: an attempt's own copy, kept only when its answer is. */
  notes: ActionNote[];
  /** Runs the action under `attempt`, adding its notes to `notes`. */
  run(attempt: AbortController, notes: ActionNote[]): Promise<T>;
}

/**
 * Runs the action after the flush, or (`overlap`) while it runs: the flush, a round trip through
 * the watcher's thread, costs as much as a fast answer. When the flush heard of no change, the
 * servers' view when the query went out was the disk as of the request, and the answer stands;
 * otherwise it is dropped (its request cancelled) and the query asked again once the changes are
 * delivered. Equally exact; the flush is off the answer's path when nothing changed.
 */
export async function runAfterFlush<T>(request: FlushedRun<T>): Promise<T> {
  const { watcher, controller, notes } = request;
  // Changes still being delivered (heard undefined): the servers may not have them yet.
  const before = request.overlap ? watcher.heard : undefined;
  if (before === undefined) {
    await request.flush();
    return await request.run(controller, notes);
  }
  const attempt = new AbortController();
  const cancel = () => attempt.abort();
  controller.signal.addEventListener("abort", cancel, { once: true });
  const attemptNotes = [...notes];
  try {
    const answer = request.run(attempt, attemptNotes);
    answer.catch(() => {});
    await request.flush();
    if (watcher.heard === before) {
      const result = await answer;
      notes.splice(0, notes.length, ...attemptNotes);
      return result;
    }
    attempt.abort();
  } finally {
    controller.signal.removeEventListener("abort", cancel);
  }
  // The flush delivered what changed: asked again, as it would have been after the flush.
  return await request.run(controller, notes);
}
