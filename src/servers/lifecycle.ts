// A server's life after its start: when a failed or crashing one is not started again, how an
// exit is recorded, and stopping one on purpose (on request, when idle, at shutdown).
import { LspGateError } from "../errors.ts";
import type { ExitInfo, ServerClient } from "../lsp/server_client.ts";
import { howEnded } from "../lsp/server_exit.ts";
import type { Telemetry } from "../telemetry.ts";
import type { ServerEntry } from "./manager_types.ts";

const FAILED_START_MEMORY_MS = 30_000;
const CRASH_WINDOW_MS = 180_000;
const MAX_CRASHES = 5;
const IDLE_CHECK_MIN_MS = 50;
const IDLE_CHECK_MAX_MS = 30_000;

/**
 * Why `entry`'s server is not started now: disabled after crashing too often, or its start
 * failed moments ago (the same error again, not another slow failure). Undefined: start it.
 */
export function startRefusal(entry: ServerEntry): LspGateError | undefined {
  const state = entry.state;
  if (state.kind === "disabled") {
    return new LspGateError(
      "SERVER_EXITED",
      `${entry.key} is not restarted: ${state.reason}. Use the restart action to try again.`,
      { server: entry.key },
    );
  }
  if (state.kind === "failed" && Date.now() - state.at < FAILED_START_MEMORY_MS) {
    return state.error;
  }
  return undefined;
}

/** Records the exit of `entry`'s running `client`: crashed, or disabled after too many crashes. */
export function recordExit(
  entry: ServerEntry,
  client: ServerClient,
  info: ExitInfo,
  telemetry?: Telemetry,
): void {
  if (entry.state.kind !== "running" || entry.state.client !== client) return;
  const now = Date.now();
  entry.crashes = [...entry.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
  const reason = info.reason ?? howEnded(info);
  telemetry?.emit("server.exit", {
    server: entry.adapter.id,
    reason,
    uptime_ms: now - entry.state.since,
  });
  entry.state = entry.crashes.length >= MAX_CRASHES
    ? {
      kind: "disabled",
      reason: `it crashed ${entry.crashes.length} times in ${CRASH_WINDOW_MS / 60000} minutes ` +
        `(last: ${reason})`,
    }
    : { kind: "crashed", at: now, reason, stderr: info.stderr };
}

/**
 * Stops `entry`'s server on purpose (after a start under way), its state "stopped" for `reason`;
 * `cleanup` removes what its sandbox left.
 */
export async function stopServer(
  entry: ServerEntry,
  reason: string,
  cleanup: (client: ServerClient) => Promise<void>,
  telemetry?: Telemetry,
): Promise<void> {
  const starting = entry.starting;
  if (starting) await starting.catch(() => {});
  const state = entry.state;
  entry.disk.clear();
  if (state.kind !== "running") return;
  entry.state = { kind: "stopped", reason };
  await state.client.shutdown();
  // The process is gone: what its sandbox left (a scratch folder) goes before lspgate may exit.
  await cleanup(state.client);
  telemetry?.emit("server.exit", {
    server: entry.adapter.id,
    reason,
    uptime_ms: Date.now() - state.since,
  });
}

/** How often to look for servers idle longer than `idleShutdownMs`. */
export function idleCheckMs(idleShutdownMs: number): number {
  return Math.min(IDLE_CHECK_MAX_MS, Math.max(IDLE_CHECK_MIN_MS, idleShutdownMs / 4));
}

/** Stops, with `stop`, each running server no request has used for `limitMs`. */
export async function stopIdle(
  entries: Iterable<ServerEntry>,
  limitMs: number,
  stop: (entry: ServerEntry, reason: string) => Promise<void>,
): Promise<void> {
  for (const entry of entries) {
    if (entry.state.kind !== "running" || entry.inFlight > 0 || entry.starting) continue;
    if (Date.now() - entry.lastUsed < limitMs) continue;
    const idle = limitMs < 10_000 ? `${limitMs} ms` : `${Math.round(limitMs / 1000)} s`;
    await stop(entry, `unused for ${idle}`);
  }
}
