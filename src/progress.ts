// Progress while a request waits: which servers are starting, and what they report they are doing
// (`$/progress` titles with percentages). Front ends ask for it per request: JSON lines with
// `"progress": true`, MCP with a progress token, the CLI on a terminal.
import type { ServerManager } from "./servers/manager.ts";

/** One progress update: what each busy server is doing. */
export interface ProgressUpdate {
  servers: { server: string; state: "starting" | "indexing"; work: string[] }[];
  /** One line for people: "pyright: starting; typescript: Loading 40%". */
  message: string;
}

const POLL_MS = 50;

/** What the servers are busy with now (empty when every server is idle and ready). */
export function progressNow(manager: ServerManager): ProgressUpdate {
  const servers: ProgressUpdate["servers"] = [];
  for (const entry of manager.entries()) {
    if (entry.state.kind === "starting") {
      servers.push({ server: entry.adapter.id, state: "starting", work: [] });
    } else if (entry.state.kind === "running") {
      const work = entry.state.client.info().indexing;
      if (work.length) servers.push({ server: entry.adapter.id, state: "indexing", work });
    }
  }
  const message = servers.map((s) => `${s.server}: ${s.work.join(", ") || s.state}`).join("; ");
  return { servers, message };
}

/**
 * Calls `report` with each change of progress until `until` settles. Rationale: the servers'
 * progress lives in their clients (in Workers); sampling it is cheap and needs no plumbing
 * through every action.
 */
export function watchProgress(
  manager: ServerManager,
  until: Promise<unknown>,
  report: (update: ProgressUpdate) => void,
): void {
  let last = "";
  const sample = () => {
    const update = progressNow(manager);
    const key = update.message;
    if (key === last) return;
    last = key;
    report(update);
  };
  const timer = setInterval(sample, POLL_MS);
  queueMicrotask(sample);
  until.finally(() => clearInterval(timer)).catch(() => {});
}

/** The request without its `progress` field, and whether progress was asked for. */
export function takeProgressFlag(raw: unknown): { request: unknown; progress: boolean } {
  if (!raw || typeof raw !== "object" || Array.isArray(raw) || !("progress" in raw)) {
    return { request: raw, progress: false };
  }
  const { progress, ...request } = raw as Record<string, unknown>;
  return { request, progress: progress === true };
}
