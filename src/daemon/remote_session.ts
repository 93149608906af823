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
  close(): Promise<void>;
}

/**
 * A session served by the workspace's daemon: the same answers as an in-process Session, from
 * warm servers shared with the daemon's other clients, under this connection's own role.
 */
export class RemoteSession implements Gate {
  private constructor(
    readonly workspace: WorkspaceRoot,
    readonly facts: SessionFacts,
    readonly connection: DaemonConnection,
  ) {}

  /** Wraps an open daemon connection. */
  static async over(
    connection: DaemonConnection,
    options: { root: string; readOnlyRoots: string[] },
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
    return new RemoteSession(workspace, facts, connection);
  }

  /** Answers one request through the daemon. */
  async handle(raw: unknown): Promise<Response> {
    return await this.connection.request(raw) as unknown as Response;
  }

  /** Closes the connection; the daemon and its servers stay up for the next client. */
  close(): Promise<void> {
    this.connection.close();
    return Promise.resolve();
  }
}
