import type { SessionFacts } from "../actions/types.ts";
import { WorkspaceRoot } from "../permissions/workspace.ts";
import type { Response } from "../session.ts";
import { VERSION } from "../version.ts";
import type { DaemonConnection } from "./client.ts";

/** What a front end needs of a session: answer requests, say who it is, close. */
export interface Gate {
  readonly workspace: WorkspaceRoot;
  readonly facts: SessionFacts;
  handle(raw: unknown): Promise<Response>;
  /** The caller will send nothing more (EOF): work in flight may be cut short to end promptly. */
  endInput?(): void;
  close(): Promise<void>;
}

/** Connects again after the daemon went away (starting a new one when there is none). */
export type Reconnect = () => Promise<DaemonConnection | undefined>;

/**
 * A session served by this user's daemon: the same answers as an in-process Session, from
 * warm servers shared with the daemon's other clients, under this connection's own role. When the
 * daemon goes away (stopped, killed), the requests in flight answer SERVER_EXITED once, and the
 * next request reconnects — to a new daemon, started when there is none.
 */
export class RemoteSession implements Gate {
  #connection: DaemonConnection;
  #reconnecting?: Promise<DaemonConnection | undefined>;
  #closed = false;

  private constructor(
    readonly workspace: WorkspaceRoot,
    readonly facts: SessionFacts,
    connection: DaemonConnection,
    readonly reconnect?: Reconnect,
  ) {
    this.#connection = connection;
  }

  /** Wraps an open daemon connection; `reconnect` makes a new one when it is lost. */
  static async over(
    connection: DaemonConnection,
    options: { root: string; readOnlyRoots: string[]; reconnect?: Reconnect },
  ): Promise<RemoteSession> {
    const workspace = await WorkspaceRoot.open(options.root, {
      readOnlyRoots: options.readOnlyRoots,
    });
    const granted = connection.granted;
    const facts: SessionFacts = {
      role: granted.role,
      allowMutations: granted.allowMutations,
      sandbox: typeof granted.sandbox === "string"
        ? `${granted.sandbox} (in the daemon)`
        : granted.sandboxed
        ? "yes (in the daemon)"
        : "no: servers are NOT confined",
      sandboxed: granted.sandboxed === true,
      sandboxBackend: granted.sandboxBackend as SessionFacts["sandboxBackend"],
      trustedRoots: [],
      startedAt: Date.now(),
      version: VERSION,
    };
    return new RemoteSession(workspace, facts, connection, options.reconnect);
  }

  /** The daemon connection in use now. */
  get connection(): DaemonConnection {
    return this.#connection;
  }

  /** Answers one request through the daemon. */
  async handle(raw: unknown): Promise<Response> {
    return await this.request(raw);
  }

  /** Answers one request through the daemon, with its progress lines to `progress`. */
  async request(raw: unknown, progress?: (p: unknown) => void): Promise<Response> {
    const connection = await this.#live();
    return await connection.request(raw, progress) as unknown as Response;
  }

  /** The connection, made again when the daemon went away (one attempt shared by all asking). */
  async #live(): Promise<DaemonConnection> {
    if (this.#connection.open || this.#closed || !this.reconnect) return this.#connection;
    this.#reconnecting ??= this.reconnect().catch(() => undefined).finally(() => {
      this.#reconnecting = undefined;
    });
    const fresh = await this.#reconnecting;
    if (fresh && !this.#closed) {
      if (fresh !== this.#connection) this.#connection = fresh;
    } else fresh?.close();
    // No daemon could be reached: the closed connection answers SERVER_EXITED; the next ask
    // tries again.
    return this.#connection;
  }

  /** The caller's input ended: the daemon cuts this connection's parses in flight short. */
  endInput(): void {
    this.#connection.endInput();
  }

  /** Closes the connection; the daemon and its servers stay up for the next client. */
  close(): Promise<void> {
    this.#closed = true;
    this.#connection.close();
    return Promise.resolve();
  }
}
