/**
 * One daemon for all of a user's workspaces: each connection names its root in its hello, and is
 * served by that root's own warm Session (opened on first use), never another's.
 *
 * Architecture Invariant: a connection's view is made from its own root's Session alone, so its
 * requests pass that root's workspace boundary like an in-process session's; nothing of another
 * root reaches it but what the daemon's own `status` lists to a main connection (the roots it
 * serves and their servers, what `lspgate daemon status` shows the user).
 *
 * @module
 */

import { LspGateError } from "../errors.ts";
import type { Session } from "../session.ts";
import type { ConnectionHandler, DaemonHandler, Hello } from "./server.ts";
import { sessionHandler } from "./session_handler.ts";

/** Options of rootsHandler(). */
export interface RootsOptions {
  /** Opens the warm Session of one real root. */
  open(root: string): Promise<Session>;
  /** The root of a hello that names none (clients before roots were named). */
  defaultRoot?: string;
  /** Closes a root nobody has been connected to for this long (ms; 0 = never). */
  idleMs: number;
}

interface Served {
  session: Promise<Session>;
  handler?: DaemonHandler;
  connections: number;
  lastActive: number;
}

/** The daemon's handler over every root its clients name. */
export function rootsHandler(options: RootsOptions): DaemonHandler & {
  /** The real roots served now. */
  roots(): string[];
} {
  const served = new Map<string, Served>();
  const idleTimer = options.idleMs
    ? setInterval(() => closeIdle(), Math.max(50, Math.min(30_000, options.idleMs / 4)))
    : undefined;
  if (idleTimer !== undefined) Deno.unrefTimer(idleTimer);

  const closeIdle = () => {
    for (const [root, entry] of served) {
      if (entry.connections > 0 || Date.now() - entry.lastActive < options.idleMs) continue;
      served.delete(root);
      entry.handler?.close().catch(() => {});
    }
  };

  const serve = async (root: string): Promise<Served & { handler: DaemonHandler }> => {
    let entry = served.get(root);
    if (!entry) {
      const session = options.open(root);
      entry = { session, connections: 0, lastActive: Date.now() };
      served.set(root, entry);
      const made = entry;
      session.then(
        (s) => made.handler = sessionHandler(s, { writable: writeGranted(root) }),
        () => served.get(root) === made && served.delete(root),
      );
    }
    await entry.session;
    return entry as Served & { handler: DaemonHandler };
  };

  return {
    async connect(hello: Hello): Promise<ConnectionHandler> {
      const named = hello.root ?? options.defaultRoot;
      if (!named) throw new LspGateError("INVALID_INPUT", "hello.root is missing");
      const root = await realRoot(named);
      const entry = await serve(root);
      const inner = await entry.handler.connect(hello);
      entry.connections++;
      let open = true;
      return {
        granted: inner.granted,
        handle: (raw, progress) => {
          entry.lastActive = Date.now();
          return inner.handle(raw, progress);
        },
        close() {
          if (!open) return;
          open = false;
          entry.connections--;
          entry.lastActive = Date.now();
          inner.close();
        },
      };
    },
    status(hello?: Hello) {
      const own = hello?.root ?? options.defaultRoot;
      const views = [...served].filter(([, entry]) => entry.handler).map(([root, entry]) => ({
        root,
        ...entry.handler!.status(),
      }));
      // A sub-agent's connection learns nothing of the other roots.
      const visible = hello?.role === "subagent"
        ? views.filter((view) => own !== undefined && sameRoot(view.root, own))
        : views;
      const mine = visible.find((view) => own !== undefined && sameRoot(view.root, own));
      return {
        ...(mine ?? {}),
        pid: Deno.pid,
        daemonPid: Deno.pid,
        roots: visible.map((view) => view.root),
        served: visible,
      };
    },
    async close() {
      clearInterval(idleTimer);
      const handlers = [...served.values()];
      served.clear();
      await Promise.allSettled(handlers.map(async (entry) => {
        await entry.session.catch(() => {});
        await entry.handler?.close();
      }));
    },
    roots: () => [...served.keys()],
  };
}

async function realRoot(root: string): Promise<string> {
  try {
    const real = await Deno.realPath(root);
    if (!(await Deno.stat(real)).isDirectory) throw new Deno.errors.NotFound(root);
    return real;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new LspGateError("FILE_NOT_FOUND", `The root ${root} is not a folder.`, { root });
    }
    throw error;
  }
}

function sameRoot(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return Deno.realPathSync(b) === a;
  } catch {
    return false;
  }
}

/** Whether this daemon may write to `root` (its Deno grant): the ceiling of its clients' mutations. */
function writeGranted(root: string): boolean {
  return Deno.permissions.querySync({ name: "write", path: root }).state === "granted";
}
