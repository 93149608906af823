import { configSchema, type LspGateConfig } from "../config.ts";
import { LspGateError, toLspGateError } from "../errors.ts";
import { takeProgressFlag, watchProgress } from "../progress.ts";
import type { Session } from "../session.ts";

/** Why a client asking for mutations of a daemon without write permission is refused them. */
const READ_ONLY_DAEMON = "Not allowed: the daemon serving this root was started without write " +
  "permission (--allow-write; e.g. by a hook or `lspgate call`, which need none), so it writes " +
  "for nobody here, --allow-mutations or not. Stop it (`lspgate daemon stop`) and run again: " +
  "this process, with its write permission, then starts the daemon.";
import type { ConnectionHandler, DaemonHandler, Hello } from "./server.ts";

/** One workspace a client names: its real root, and what its session runs with. */
export interface WorkspaceTarget {
  root: string;
  config: LspGateConfig;
  sandbox: "auto" | "bwrap" | "landlock" | "none";
  trust: boolean;
}

/** Opens the session of one workspace (the daemon's sandbox and trust for it). */
export type SessionOpener = (target: WorkspaceTarget) => Promise<Session>;

/** One workspace's warm session and who uses it. */
interface Entry {
  key: string;
  target: WorkspaceTarget;
  /** Opened on the first request (a `daemon status` opens nothing). */
  session?: Promise<Session>;
  /** The session once open. */
  current?: Session;
  /** The root folder's identity when the session opened: a re-created folder gets a new one. */
  identity?: string;
  generation: number;
  writable: boolean;
  connections: number;
  served: number;
  byClient: Map<string, number>;
  lastActive: number;
}

/**
 * The daemon's handler: one warm Session per workspace (real root, config, sandbox, trust) its
 * clients name, and for each connection a view of its workspace's session with the connection's
 * own role, never more than the daemon itself may do. Rationale: the daemon's Deno permissions
 * are the ceiling; where it cannot write to a root it grants no mutations, and says so in the
 * hello; where it cannot read one it refuses the connection (the client then serves in-process).
 * A connection learns nothing of the other workspaces.
 */
export function sessionHandler(open: SessionOpener): DaemonHandler {
  const entries = new Map<string, Entry>();
  const closeEntry = async (entry: Entry) => {
    if (entries.get(entry.key) === entry) entries.delete(entry.key);
    const session = await entry.session?.catch(() => undefined);
    entry.session = undefined;
    entry.current = undefined;
    await session?.close();
  };
  // A workspace nobody used for its config's daemonIdleMs is closed.
  const sweep = setInterval(() => {
    for (const entry of entries.values()) {
      const idle = entry.target.config.daemonIdleMs;
      if (entry.connections === 0 && idle > 0 && Date.now() - entry.lastActive >= idle) {
        closeEntry(entry);
      }
    }
  }, 1_000);
  Deno.unrefTimer(sweep);

  const sessionOf = async (entry: Entry): Promise<Session> => {
    const identity = await folderIdentity(entry.target.root);
    if (entry.session && identity !== entry.identity) {
      // The workspace folder was deleted and made again: its watcher and servers watched the
      // old one. A fresh session serves the new folder.
      const old = entry.session;
      entry.session = undefined;
      entry.current = undefined;
      old.then((s) => s.close(), () => {});
    }
    if (!entry.session) {
      entry.identity = identity;
      entry.generation++;
      entry.session = open(entry.target);
      entry.session.catch(() => entry.session = undefined);
    }
    return entry.current = await entry.session;
  };

  return {
    async connect(hello: Hello): Promise<ConnectionHandler> {
      const target = workspaceOf(hello);
      const key = JSON.stringify(target);
      let entry = entries.get(key);
      if (!entry) {
        entry = {
          key,
          target,
          generation: 0,
          writable: granted("write", target.root),
          connections: 0,
          served: 0,
          byClient: new Map(),
          lastActive: Date.now(),
        };
        entries.set(key, entry);
      }
      const own = entry;
      const wantsMutations = hello.role === "main" && hello.allowMutations;
      const allowMutations = wantsMutations && own.writable;
      // Asked for mutations of a daemon that may not write: every refusal says why (a helper's
      // find: "run lspgate with --allow-mutations", to a client that had).
      const readOnlyDaemon = wantsMutations && !own.writable;
      own.connections++;
      const client = hello.client ?? "unknown";
      own.byClient.set(client, (own.byClient.get(client) ?? 0) + 1);
      // A client that will ask (not `daemon status`) has its workspace opened now: the hello says
      // how its servers are confined.
      const asking = hello.client !== "daemon-cli" && hello.client !== "doctor";
      if (asking) {
        await sessionOf(own).catch((error) => {
          own.connections--;
          own.byClient.set(client, (own.byClient.get(client) ?? 1) - 1);
          throw error;
        });
      }
      let view: { session: Session; generation: number } | undefined;
      let open = true;
      const status = () => ({
        pid: Deno.pid,
        daemonPid: Deno.pid,
        // How many workspaces the daemon serves, never which: every connection on the user's
        // socket may be an agent's, and learns nothing of another root (not even its path).
        workspaces: new Set([...entries.values()].map((e) => e.target.root)).size,
        root: target.root,
        connections: own.connections,
        clients: Object.fromEntries([...own.byClient].filter(([, n]) => n > 0)),
        requests: own.served,
        writable: own.writable,
        ...(own.current
          ? {
            sandboxed: own.current.facts.sandboxed,
            ...serversMemory(own.current),
          }
          : { servers: [] }),
      });
      // Every session of this root, one per config asked (`--memory-budget`, `--sandbox`, …).
      const ofRoot = () => [...entries.values()].filter((e) => e.target.root === target.root);
      // This connection's requests reach the session in the order they came: each waits for the
      // one before it to be handed over (the folder's identity is an async stat, and two finish in
      // any order), so a cancel sent right after its request finds it in flight.
      let handedOver: Promise<unknown> = Promise.resolve();
      return {
        workspace: target.root,
        granted: {
          role: hello.role,
          allowMutations,
          root: target.root,
          sandboxed: own.current?.facts.sandboxed ?? false,
          ...(readOnlyDaemon ? { note: READ_ONLY_DAEMON } : {}),
        },
        async handle(raw: unknown, progress: (line: unknown) => void) {
          own.served++;
          own.lastActive = Date.now();
          let session: Session;
          const turn = handedOver.then(() => sessionOf(own));
          handedOver = turn.catch(() => {});
          try {
            session = await turn;
          } catch (error) {
            // The workspace could not be opened (again): said to this request, the daemon serves on.
            const e = toLspGateError(error);
            const id = (raw as { id?: unknown })?.id ?? null;
            return { id, ok: false, error: { code: e.code, message: e.message } };
          }
          if (!view || view.generation !== own.generation) {
            view?.session.close();
            view = {
              session: session.view({ role: hello.role, allowMutations }),
              generation: own.generation,
            };
          }
          const { request, progress: wanted } = takeProgressFlag(raw);
          const answer = view.session.handle(request);
          if (wanted) watchProgress(session.manager, answer, progress);
          try {
            const answered = await answer;
            if (!readOnlyDaemon || answered.ok || answered.error.code !== "ACTION_NOT_ALLOWED") {
              return answered;
            }
            return { ...answered, error: { ...answered.error, message: READ_ONLY_DAEMON } };
          } finally {
            own.lastActive = Date.now();
          }
        },
        close() {
          if (!open) return;
          open = false;
          own.connections--;
          own.lastActive = Date.now();
          own.byClient.set(client, (own.byClient.get(client) ?? 1) - 1);
          view?.session.close();
          // A workspace only ever asked about (status) keeps no entry.
          if (own.connections === 0 && !own.session && entries.get(key) === own) {
            entries.delete(key);
          }
        },
        endInput() {
          view?.session.endInput();
        },
        status,
        // `daemon stop` names a root: its sessions stop, started with any flags (a stop without
        // the `--memory-budget` a call had used left that call's servers running).
        stop: async () => {
          await Promise.all([...new Set([own, ...ofRoot()])].map(closeEntry));
        },
        opened: () => ofRoot().filter((e) => e.session).length,
      };
    },
    status() {
      return { pid: Deno.pid, workspaces: this.sessions!() };
    },
    sessions() {
      return [...entries.values()].filter((e) => e.session).length;
    },
    async close() {
      clearInterval(sweep);
      await Promise.all([...entries.values()].map(closeEntry));
    },
  };
}

/** A session's servers with each one's memory, the total and the budget (as `status` shows). */
function serversMemory(session: Session) {
  const memory = session.manager.memory(true);
  return {
    servers: session.manager.entries().map((e) => ({
      server: e.key,
      state: e.state.kind,
      pid: e.state.kind === "running" ? e.state.client.pid : undefined,
      rssMiB: memory.rssMiB.get(e.key),
    })),
    serversRssMiB: memory.totalMiB ?? null,
    memoryBudgetMiB: memory.budgetMiB ?? null,
  };
}

/** The workspace a hello names, checked; a hello without one, or one this daemon may not read, is refused. */
function workspaceOf(hello: Hello): WorkspaceTarget {
  const workspace = hello.workspace;
  if (!workspace || typeof workspace.root !== "string" || !workspace.root.startsWith("/")) {
    throw new LspGateError("INVALID_INPUT", "the hello names no workspace (an absolute root)");
  }
  const config = configSchema.safeParse(workspace.config ?? {});
  if (!config.success) {
    throw new LspGateError("INVALID_INPUT", `the hello's config is not valid: ${config.error}`);
  }
  const sandbox = workspace.sandbox;
  if (sandbox !== "auto" && sandbox !== "bwrap" && sandbox !== "landlock" && sandbox !== "none") {
    throw new LspGateError(
      "INVALID_INPUT",
      "the hello's sandbox must be auto, bwrap, landlock or none",
    );
  }
  if (!granted("read", workspace.root)) {
    throw new LspGateError(
      "PERMISSION_DENIED",
      `this daemon may not read ${workspace.root} (it was started with a narrower grant); ` +
        "`lspgate daemon stop` it, or serve this workspace in-process",
    );
  }
  return { root: workspace.root, config: config.data, sandbox, trust: workspace.trust === true };
}

function granted(name: "read" | "write", path: string): boolean {
  try {
    return Deno.permissions.querySync({ name, path }).state === "granted";
  } catch {
    return false;
  }
}

/** The folder's device and inode, or "gone". */
async function folderIdentity(path: string): Promise<string> {
  try {
    const info = await Deno.stat(path);
    return `${info.dev}:${info.ino}`;
  } catch {
    return "gone";
  }
}
