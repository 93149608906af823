import { LspGateError } from "../errors.ts";
import { cancelledMessage, cancelText, checkId } from "../request_id.ts";
import { LineWriter, readLines } from "../frontends/lines.ts";
import type { Hello } from "./server.ts";

/** A response line as the daemon relays it (the session's Response shape). */
export type DaemonResponse = Record<string, unknown> & { id: unknown; ok: boolean };

/** What the daemon granted this connection. */
export interface Granted {
  ok: true;
  pid: number;
  role: "main" | "subagent";
  allowMutations: boolean;
  [key: string]: unknown;
}

/**
 * One connection to the daemon, about one workspace. Requests carry the caller's ids; on the wire each gets
 * an id of this connection's own, so callers need not keep theirs unique, and a `cancel`'s
 * target is translated the same way.
 */
export class DaemonConnection {
  readonly #conn: Deno.Conn;
  readonly #writer: LineWriter;
  readonly #pending = new Map<
    number,
    {
      resolve: (line: DaemonResponse) => void;
      callerId: unknown;
      progress?: (p: unknown) => void;
      /** A cancel's target as the caller named it. */
      target?: string | number;
    }
  >();
  readonly #byCallerId = new Map<string, number>();
  #nextId = 1;
  #closed = false;
  readonly #reading: Promise<void>;
  granted!: Granted;
  #helloWaiter?: (line: Record<string, unknown>) => void;
  /** Raw mode (an MCP connection): every line after the hello, as it comes. */
  #onLine?: (line: string) => void;

  private constructor(conn: Deno.Conn) {
    this.#conn = conn;
    this.#writer = new LineWriter(conn);
    this.#reading = this.#read();
  }

  /**
   * Connects and says hello; a refused hello is thrown as the daemon's error, a daemon that closed
   * the connection before answering as DaemonGoneError.
   */
  static async open(socketPath: string, hello: Hello): Promise<DaemonConnection> {
    const conn = await Deno.connect({ transport: "unix", path: socketPath });
    const connection = new DaemonConnection(conn);
    const reply = await new Promise<Record<string, unknown>>((resolve) => {
      connection.#helloWaiter = resolve;
      connection.#writer.write(JSON.stringify({ hello }));
    });
    if (reply.closed === true) throw new DaemonGoneError();
    const answer = reply.hello as Record<string, unknown> | undefined;
    if (!answer || answer.ok !== true) {
      connection.close();
      const error = (answer?.error ?? {}) as { code?: string; message?: string };
      throw new LspGateError(
        error.code === "PERMISSION_DENIED" ? "PERMISSION_DENIED" : "INVALID_INPUT",
        `the daemon refused the connection: ${error.message ?? "no answer"}`,
      );
    }
    connection.granted = answer as Granted;
    return connection;
  }

  /** False once the connection closed (either side): requests then answer SERVER_EXITED. */
  get open(): boolean {
    return !this.#closed;
  }

  /** Sends one request; resolves with its response (the caller's id restored). */
  request(raw: unknown, progress?: (p: unknown) => void): Promise<DaemonResponse> {
    try {
      // Refused here as in-process: the daemon sees this connection's own ids, never the caller's.
      checkId((raw as { id?: unknown })?.id);
    } catch (error) {
      const e = error as LspGateError;
      return Promise.resolve({ id: null, ok: false, error: { code: e.code, message: e.message } });
    }
    const callerId = (raw as { id?: unknown })?.id ?? null;
    if (this.#closed) return Promise.resolve(lost(callerId));
    const id = this.#nextId++;
    let message = raw;
    let cancelled: string | number | undefined;
    if (raw && typeof raw === "object" && !Array.isArray(raw)) {
      const fields: Record<string, unknown> = { ...(raw as Record<string, unknown>), id };
      // A cancel names the caller's id of its target: send ours.
      const target = fields.target;
      if (isCancel(fields) && (typeof target === "string" || typeof target === "number")) {
        fields.target = this.#byCallerId.get(JSON.stringify(target)) ?? -1;
        cancelled = target;
      }
      message = fields;
    }
    return new Promise((resolve) => {
      this.#pending.set(id, { resolve, callerId, progress, target: cancelled });
      this.#byCallerId.set(JSON.stringify(callerId), id);
      this.#writer.write(JSON.stringify(message));
    });
  }

  /** The daemon's own status (`{"daemon": "status"}`), or asks it to stop. */
  async control(verb: "status" | "stop"): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const line = await new Promise<DaemonResponse>((resolve) => {
      this.#pending.set(id, { resolve, callerId: null });
      this.#writer.write(JSON.stringify({ id, daemon: verb }));
    });
    if (line.ok === false) {
      // Refused (a sub-agent's stop): said, not taken for a status. The daemon stays up, so a stop
      // that waited for it to close its side waited forever.
      const error = (line.error ?? {}) as { code?: string; message?: string };
      throw new LspGateError(
        error.code === "ACTION_NOT_ALLOWED" ? "ACTION_NOT_ALLOWED" : "SERVER_EXITED",
        error.message ?? `the daemon did not ${verb}`,
      );
    }
    return (line.daemon ?? {}) as Record<string, unknown>;
  }

  /**
   * Raw mode, for a connection whose hello asked the daemon to speak MCP on it: every line the
   * daemon sends from now on goes to `onLine`, and sendLine() writes one as it is.
   */
  relayLines(onLine: (line: string) => void): void {
    this.#onLine = onLine;
  }

  /** Writes one line as it is (raw mode). */
  sendLine(line: string): Promise<void> {
    return this.#writer.write(line);
  }

  /** Tells the daemon this client's input ended: its parses in flight are cut short (no answer). */
  endInput(): void {
    if (!this.#closed) this.#writer.write(JSON.stringify({ daemon: "end_input" }));
  }

  /** Closes the connection; the daemon cancels what is still in flight. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // Already closed.
    }
  }

  /** Waits until the daemon closed its side. */
  async closed(): Promise<void> {
    await this.#reading;
  }

  async #read() {
    try {
      for await (const line of readLines(this.#conn)) {
        if (typeof line !== "string" || line.trim() === "") continue;
        if (this.#onLine && !this.#helloWaiter) {
          this.#onLine(line);
          continue;
        }
        let message: Record<string, unknown>;
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        if ("hello" in message && this.#helloWaiter) {
          this.#helloWaiter(message);
          this.#helloWaiter = undefined;
          continue;
        }
        const id = message.id;
        if (typeof id !== "number") continue;
        const waiter = this.#pending.get(id);
        if (!waiter) continue;
        if ("progress" in message && !("ok" in message)) {
          waiter.progress?.(message.progress);
          continue;
        }
        this.#pending.delete(id);
        this.#byCallerId.delete(JSON.stringify(waiter.callerId));
        waiter.resolve(inCallerIds(message, id, waiter) as DaemonResponse);
      }
    } catch {
      // The daemon went away.
    } finally {
      this.#closed = true;
      // Gone before it answered the hello (killed, or exiting): no daemon, not a refusal.
      this.#helloWaiter?.({ closed: true });
      for (const [id, waiter] of this.#pending) {
        this.#pending.delete(id);
        waiter.resolve(lost(waiter.callerId));
      }
    }
  }
}

function isCancel(fields: Record<string, unknown>): boolean {
  return fields.action === "cancel" || fields.operation === "cancel";
}

function lost(id: unknown): DaemonResponse {
  return {
    id,
    ok: false,
    error: {
      code: "SERVER_EXITED",
      message: "the lspgate daemon went away before answering; ask again (a new one starts)",
    },
  };
}

/** The daemon closed the connection before it answered the hello: it is going away. */
export class DaemonGoneError extends Error {
  constructor() {
    super("the daemon closed the connection before answering");
    this.name = "DaemonGoneError";
  }
}

/**
 * A response as the caller sees it: its id, and the ids a cancel and a cancelled request name,
 * the caller's (the daemon's own were shown: "Cancelled request 1.", "No request -1 is in flight",
 * a helper's find).
 */
function inCallerIds(
  message: Record<string, unknown>,
  ours: number,
  waiter: { callerId: unknown; target?: string | number },
): Record<string, unknown> {
  const answer: Record<string, unknown> = { ...message, id: waiter.callerId };
  const error = message.error as { code?: unknown; message?: unknown } | undefined;
  if (error?.code === "CANCELLED" && error.message === cancelledMessage(JSON.stringify(ours))) {
    answer.error = { ...error, message: cancelledMessage(JSON.stringify(waiter.callerId)) };
  }
  const details = message.details as { target?: unknown; cancelled?: unknown } | undefined;
  if (waiter.target !== undefined && message.ok === true && details) {
    answer.details = { ...details, target: waiter.target };
    answer.content = [{
      type: "text",
      text: cancelText(waiter.target, details.cancelled === true),
    }];
  }
  return answer;
}
