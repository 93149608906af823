// How a server ended, said the same way in every error, and when its silence means it hangs.
import { LspGateError } from "../errors.ts";
import type { ExitInfo } from "./server_client.ts";
import { LAUNCHER_REFUSAL_CODE, launcherRefusal } from "./sandbox/launcher_refusal.ts";

/** Timeouts in a row, with no message of any kind from the server between, that mean it hangs. */
const HANG_LIMIT = 3;

/** How the server ended, in words ("server exited with code 1"); "connection closed" before. */
export function exitReason(info: ExitInfo | undefined): string {
  if (!info) return "connection closed";
  if (info.reason) return `server was killed: ${info.reason}`;
  return `server ${howEnded(info)}`;
}

/**
 * How the process ended by itself ("killed by SIGSEGV", "exited with code 1"), and, for one that
 * ran under a memory cap and ended badly, that it may have reached it.
 */
export function howEnded(info: ExitInfo): string {
  const how = info.signal ? `killed by ${info.signal}` : `exited with code ${info.code}`;
  const bad = info.signal !== null || info.code !== 0;
  return bad && info.memoryCapMiB !== undefined
    ? `${how} (it runs with its memory capped at ${info.memoryCapMiB} MiB, memoryCapMiB: it may ` +
      "have reached it)"
    : how;
}

/** The SERVER_EXITED error for a server that ended: how, and its last stderr lines. */
export function exitedError(serverName: string, info: ExitInfo | undefined): LspGateError {
  const stderr = info?.stderr ?? [];
  return new LspGateError(
    "SERVER_EXITED",
    `${serverName} ${exitReason(info).replace(/^server /, "")}` +
      (stderr.length ? `; last stderr lines:\n${stderr.slice(-5).join("\n")}` : ""),
    { server: serverName, stderr },
  );
}

/** Counts requests that timed out with no message from the server between, to tell a hang. */
export class HangWatch {
  #silentTimeouts = 0;
  #lastSilentTimeoutAt = -Infinity;

  /** Any message from the server shows it is alive. */
  heard(): void {
    this.#silentTimeouts = 0;
  }

  /**
   * Counts a timeout towards HANG_LIMIT; at the limit, returns why the server is to be killed.
   * Requests sent together that time out together (a diagnostics batch on a busy server) count
   * once: only a request sent after the last counted timeout counts again.
   */
  timedOut(sentAt: number): string | undefined {
    if (sentAt < this.#lastSilentTimeoutAt) return undefined;
    this.#lastSilentTimeoutAt = performance.now();
    this.#silentTimeouts++;
    if (this.#silentTimeouts < HANG_LIMIT) return undefined;
    return `it stopped answering (${this.#silentTimeouts} requests in a row timed ` +
      `out with no message from it)`;
  }
}

/**
 * Why a server did not start: SERVER_START_FAILED with how it ended (`exited`, when it did before
 * answering initialize) or the error, and its last stderr lines; PERMISSION_DENIED where the
 * Landlock launcher refused a scratch folder that changed after lspgate checked it.
 */
export function startFailure(
  serverName: string,
  error: unknown,
  { exited, stderr }: { exited: ExitInfo | undefined; stderr: string[] },
): LspGateError {
  const refused = exited?.code === LAUNCHER_REFUSAL_CODE ? launcherRefusal(stderr) : undefined;
  if (refused !== undefined) {
    return new LspGateError("PERMISSION_DENIED", `${serverName} was not started: ${refused}`, {
      server: serverName,
      stderr,
    });
  }
  const reason = exited
    ? exitReason(exited).replace(
      /^server (killed)?/,
      (_, killed) => killed ? "it was killed" : "it ",
    )
    : error instanceof Error
    ? error.message
    : String(error);
  return new LspGateError(
    "SERVER_START_FAILED",
    `${serverName} failed to start: ${reason}` +
      (stderr.length ? `\nlast stderr lines:\n${stderr.join("\n")}` : ""),
    { server: serverName, stderr },
  );
}
