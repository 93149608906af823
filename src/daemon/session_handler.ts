import { takeProgressFlag, watchProgress } from "../progress.ts";
import type { Session } from "../session.ts";
import type { ConnectionHandler, DaemonHandler, Hello } from "./server.ts";

/**
 * The daemon's handler over one warm Session: each connection gets a view of it with the
 * connection's own role, never more than the daemon itself may do. Rationale: the daemon's Deno
 * permissions are the ceiling; a daemon that cannot write to the root grants no mutations, and
 * says so in the hello.
 */
export function sessionHandler(session: Session, options: { writable: boolean }): DaemonHandler {
  let connections = 0;
  let served = 0;
  const byClient = new Map<string, number>();
  return {
    connect(hello: Hello): ConnectionHandler {
      const wantsMutations = hello.role === "main" && hello.allowMutations;
      const allowMutations = wantsMutations && options.writable;
      const view = session.view({ role: hello.role, allowMutations });
      connections++;
      const client = hello.client ?? "unknown";
      byClient.set(client, (byClient.get(client) ?? 0) + 1);
      let open = true;
      return {
        granted: {
          role: hello.role,
          allowMutations,
          root: session.workspace.path,
          sandboxed: session.facts.sandboxed,
          sandbox: session.facts.sandbox,
          sandboxBackend: session.facts.sandboxBackend,
          ...(wantsMutations && !options.writable
            ? {
              note: `this daemon may not write to ${session.workspace.path} (its Deno grant), so ` +
                "it writes for nobody there. Stop it (`lspgate daemon stop`) and let a process with " +
                "write permission start it.",
            }
            : {}),
        },
        async handle(raw: unknown, progress: (line: unknown) => void) {
          served++;
          const { request, progress: wanted } = takeProgressFlag(raw);
          const answer = view.handle(request);
          if (wanted) watchProgress(session.manager, answer, progress);
          return await answer;
        },
        close() {
          if (!open) return;
          open = false;
          connections--;
          byClient.set(client, (byClient.get(client) ?? 1) - 1);
          view.close();
        },
      };
    },
    status() {
      const memory = session.manager.memory(true);
      return {
        pid: Deno.pid,
        root: session.workspace.path,
        connections,
        clients: Object.fromEntries([...byClient].filter(([, n]) => n > 0)),
        requests: served,
        writable: options.writable,
        sandboxed: session.facts.sandboxed,
        servers: session.manager.entries().map((e) => ({
          server: e.key,
          state: e.state.kind,
          pid: e.state.kind === "running" ? e.state.client.pid : undefined,
          rssMiB: memory.rssMiB.get(e.key),
        })),
        memoryBudgetMiB: memory.budgetMiB ?? null,
        serversRssMiB: memory.totalMiB ?? null,
      };
    },
    close: () => session.close(),
  };
}
