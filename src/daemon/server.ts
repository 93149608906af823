import { LspGateError, toLspGateError } from "../errors.ts";
import { VERSION } from "../version.ts";
import { LineWriter, readLines } from "../frontends/lines.ts";
import { checkRuntimeEntry } from "../runtime_folder.ts";

/** What a client says first on a daemon connection. */
export interface Hello {
  role: "main" | "subagent";
  allowMutations: boolean;
  /** The agent's session id (e.g. Claude Code's `session_id`), for per-turn memory. */
  session?: string;
  /** Which front end: `call`, `hook`, `mcp`, `jsonl`. */
  client?: string;
  /**
   * The connection speaks MCP after the hello (`lspgate mcp --daemon`): the daemon serves the
   * `lsp` tool on it, so the client only relays lines and loads no MCP SDK of its own.
   */
  mcp?: boolean;
  /**
   * The workspace this connection is about: its real root, and the config, sandbox and trust it
   * runs with (one daemon per user serves every workspace; each (root, config) its own session).
   */
  workspace?: { root: string; config: unknown; sandbox: string; trust: boolean };
}

/** One client connection's view of the daemon: its own role, its own requests. */
export interface ConnectionHandler {
  /** What the connection was granted (a role can be lowered, never raised). */
  granted: Record<string, unknown>;
  /** Answers one request object; never throws. `progress` lines go to this connection only. */
  handle(raw: unknown, progress: (line: unknown) => void): Promise<unknown>;
  /** The client went away: cancel what it still has in flight. */
  close(): void;
  /** The client will send nothing more (its input ended): its parses in flight are cut short. */
  endInput?(): void;
  /** Which workspace root the connection is served for (connections of one root stop together). */
  workspace?: string;
  /** The status of this connection's workspace (never another's); default: the daemon's. */
  status?(): Record<string, unknown>;
  /** Stops every session of this connection's root, whatever their config (`daemon stop`). */
  stop?(): Promise<void>;
  /** How many sessions of this connection's root are open (one per config asked). */
  opened?(): number;
}

/** The daemon's side: it opens connections, reports status, and stops. */
export interface DaemonHandler {
  /** Opens a connection's view; a throw refuses the hello with the error. */
  connect(hello: Hello): ConnectionHandler | Promise<ConnectionHandler>;
  status(): Record<string, unknown>;
  close(): Promise<void>;
  /** How many workspace sessions are open: with none and no connection the daemon ends soon. */
  sessions?(): number;
}

/** Options of runDaemon(). */
export interface DaemonOptions {
  socketPath: string;
  handler: DaemonHandler;
  /** Stop after this long with no connection and nothing in flight (0 = never). */
  idleMs: number;
  /** Longest request line accepted; a longer one drops the connection (default 16 MiB). */
  maxLineChars?: number;
}

/** A running daemon: its address, and how to stop it. */
export interface RunningDaemon {
  socketPath: string;
  /** Resolves when the daemon has stopped (idle, `stop`, or stop()). */
  done: Promise<void>;
  stop(): Promise<void>;
}

const HELLO_TIMEOUT_MS = 10_000;
// A daemon with no workspace session open and no client ends this soon after (sessions close
// after their own idle time).
const EMPTY_MS = 5_000;
const MAX_LINE_CHARS = 16 * 1024 * 1024;

/**
 * Serves a daemon on a Unix socket: JSON lines, a `{"hello": …}` line first, then requests.
 * `{"id": …, "daemon": "status" | "stop"}` are the daemon's own requests. A stale socket (no
 * daemon behind it) is replaced; a live one means another daemon serves: ALREADY_RUNNING.
 */
export async function runDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const { socketPath, handler } = options;
  const listener = await listenReplacingStale(socketPath);
  // Only this user: the folder is 0700 already; the socket too, in case it is ever moved.
  await Deno.chmod(socketPath, 0o600);
  const ours = await Deno.stat(socketPath);
  const connections = new Set<Deno.Conn>();
  const servedBy = new Map<Deno.Conn, ConnectionHandler>();
  let inFlight = 0;
  let lastActive = Date.now();
  let stopping: Promise<void> | undefined;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => resolveDone = resolve);

  const stop = () => {
    stopping ??= (async () => {
      clearInterval(idleTimer);
      try {
        listener.close();
      } catch {
        // Already closed.
      }
      for (const conn of connections) closeQuietly(conn);
      // Remove the socket only if it is still ours (a new daemon may have replaced it).
      try {
        const now = await Deno.stat(socketPath);
        if (now.ino === ours.ino && now.dev === ours.dev) await Deno.remove(socketPath);
      } catch {
        // Gone already.
      }
      await handler.close();
      resolveDone();
    })();
    return stopping;
  };

  const idleTimer = setInterval(() => {
    // A daemon whose socket is gone (its runtime folder removed) or replaced can never be reached
    // again: it ends.
    try {
      const now = Deno.lstatSync(socketPath);
      if (now.ino !== ours.ino || now.dev !== ours.dev) return stop();
    } catch {
      return stop();
    }
    if (connections.size > 0 || inFlight > 0) return;
    const empty = handler.sessions?.() === 0;
    if (!options.idleMs && !empty) return;
    if (Date.now() - lastActive >= (empty ? EMPTY_MS : options.idleMs)) stop();
  }, Math.max(50, Math.min(5_000, options.idleMs / 4 || 5_000)));

  const serve = async (conn: Deno.Conn) => {
    connections.add(conn);
    const writer = new LineWriter(conn);
    const say = (value: unknown) => writer.write(JSON.stringify(value));
    let connection: ConnectionHandler | undefined;
    let hello: Hello | undefined;
    const pending = new Set<Promise<void>>();
    const helloTimer = setTimeout(() => connection || closeQuietly(conn), HELLO_TIMEOUT_MS);
    let speaksMcp = false;
    try {
      for await (const line of readLines(conn, options.maxLineChars ?? MAX_LINE_CHARS)) {
        lastActive = Date.now();
        const max = options.maxLineChars ?? MAX_LINE_CHARS;
        if (typeof line !== "string" || line.length > max) {
          const size = typeof line === "string" ? line.length : line.tooLong;
          await say(errorLine(null, "INVALID_INPUT", `a line of ${size} characters (max ${max})`));
          break;
        }
        if (line.trim() === "") continue;
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          await say(errorLine(null, "INVALID_JSON", "the line is not JSON"));
          continue;
        }
        if (!connection) {
          try {
            hello = parseHello(message);
            connection = await handler.connect(hello);
            servedBy.set(conn, connection);
            clearTimeout(helloTimer);
            await say({
              hello: {
                ok: true,
                pid: Deno.pid,
                // A client of another lspgate version serves itself instead (start.ts).
                version: VERSION,
                ...connection.granted,
                // Said back: a daemon of an earlier version would take MCP lines for requests.
                ...(hello.mcp ? { mcp: true } : {}),
              },
            });
          } catch (error) {
            const e = toLspGateError(error);
            await say({ hello: { ok: false, error: { code: e.code, message: e.message } } });
            break;
          }
          // The client sends nothing more before it has this answer: no line is left unread.
          if (hello.mcp) {
            speaksMcp = true;
            break;
          }
          continue;
        }
        if ((message as { daemon?: unknown })?.daemon === "end_input") {
          // A client whose own input ended (EOF): no answer, its requests still are.
          connection.endInput?.();
          continue;
        }
        const control = daemonRequest(message);
        if (control?.verb === "stop" && hello?.role !== "main") {
          await say(
            errorLine(control.id, "ACTION_NOT_ALLOWED", "only a main connection stops the daemon"),
          );
          continue;
        }
        const others = (handler.sessions?.() ?? 0) - (connection.opened?.() ?? 0);
        if (control?.verb === "stop" && connection.stop && others > 0) {
          // This workspace's session stops, and its clients are let go; the other workspaces'
          // go on. (Its last session stops the whole daemon, below: the listener first, so that
          // no client reconnects to a daemon on its way out.)
          const status = connection.status?.() ?? handler.status();
          const workspace = connection.workspace;
          for (const [other, served] of servedBy) {
            if (other !== conn && served.workspace === workspace) closeQuietly(other);
          }
          await connection.stop();
          await say({ id: control.id, ok: true, daemon: status });
          break;
        }
        if (control) {
          await say({
            id: control.id,
            ok: true,
            daemon: connection.status?.() ?? handler.status(),
          });
          if (control.verb === "stop") {
            await writer.close();
            stop();
            return;
          }
          continue;
        }
        inFlight++;
        const id = (message as { id?: unknown })?.id ?? null;
        const task = connection.handle(message, (progress) => say({ id, progress }))
          .then(say)
          .finally(() => {
            inFlight--;
            lastActive = Date.now();
          });
        pending.add(task);
        task.finally(() => pending.delete(task));
      }
      if (speaksMcp && connection) {
        const { serveMcpConnection } = await import("./mcp_connection.ts");
        await serveMcpConnection(conn, connection);
      }
    } catch {
      // A peer that vanished mid-line: nothing more to say to it.
    } finally {
      clearTimeout(helloTimer);
      // The client is gone: what it still has in flight is cancelled, not answered.
      connection?.close();
      await Promise.allSettled(pending);
      connections.delete(conn);
      servedBy.delete(conn);
      lastActive = Date.now();
      await writer.close();
      closeQuietly(conn);
    }
  };

  (async () => {
    try {
      for await (const conn of listener) serve(conn);
    } catch {
      // The listener was closed.
    }
  })();
  return { socketPath, done, stop };
}

function parseHello(message: unknown): Hello {
  const hello = (message as { hello?: Record<string, unknown> })?.hello;
  if (!hello || typeof hello !== "object") {
    throw new LspGateError("INVALID_INPUT", 'the first line must be {"hello": {"role": …}}');
  }
  if (hello.role !== "main" && hello.role !== "subagent") {
    throw new LspGateError("INVALID_INPUT", "hello.role must be main or subagent");
  }
  const workspace = hello.workspace as Record<string, unknown> | undefined;
  return {
    role: hello.role,
    allowMutations: hello.allowMutations === true,
    session: typeof hello.session === "string" ? hello.session.slice(0, 200) : undefined,
    client: typeof hello.client === "string" ? hello.client.slice(0, 40) : undefined,
    ...(hello.mcp === true ? { mcp: true } : {}),
    ...(workspace && typeof workspace === "object"
      ? {
        workspace: {
          root: String(workspace.root),
          config: workspace.config,
          sandbox: String(workspace.sandbox),
          trust: workspace.trust === true,
        },
      }
      : {}),
  };
}

function daemonRequest(message: unknown): { id: unknown; verb: "status" | "stop" } | undefined {
  const verb = (message as { daemon?: unknown })?.daemon;
  if (verb !== "status" && verb !== "stop") return undefined;
  return { id: (message as { id?: unknown }).id ?? null, verb };
}

function errorLine(id: unknown, code: string, message: string) {
  return { id, ok: false, error: { code, message } };
}

function closeQuietly(conn: Deno.Conn) {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}

/** Another daemon already answers on the socket: the one starting now is not needed. */
export class DaemonAlreadyRunning extends Error {
  constructor(readonly socketPath: string) {
    super(`a daemon already serves ${socketPath}`);
    this.name = "DaemonAlreadyRunning";
  }
}

/** Listens on `path`; a socket file no daemon answers on is removed first. */
async function listenReplacingStale(path: string): Promise<Deno.UnixListener> {
  // Whatever is at the socket's name must be a socket of this user's: a planted symlink is
  // refused, never connected through nor removed.
  checkRuntimeEntry(path, "socket");
  try {
    return Deno.listen({ transport: "unix", path });
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
  }
  try {
    const probe = await Deno.connect({ transport: "unix", path });
    probe.close();
    throw new DaemonAlreadyRunning(path);
  } catch (error) {
    if (error instanceof DaemonAlreadyRunning) throw error;
  }
  // Stale: its daemon died without removing it.
  await Deno.remove(path);
  return Deno.listen({ transport: "unix", path });
}
