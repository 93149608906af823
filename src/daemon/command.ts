import { ADAPTERS } from "../../adapters/mod.ts";
import { telemetryFrom } from "../telemetry.ts";
import type { LspGateConfig } from "../config.ts";
import { Session } from "../session.ts";
import { attach, attachOrStart, daemonAddress, type DaemonTarget } from "./start.ts";
import { DaemonAlreadyRunning, runDaemon } from "./server.ts";
import { rootsHandler } from "./roots.ts";
import type { CommandWrapper } from "../servers/manager.ts";
import { BudgetPool } from "../servers/budget.ts";
import { budgetOf } from "../session.ts";

/** A root's sandbox wrapper and its description (from the front end's sandboxFor). */
type Sandboxed = {
  wrap?: CommandWrapper;
  label: string;
  sandboxed: boolean;
  backend?: "bwrap" | "landlock" | "none";
};

/** What `lspgate daemon …` needs from the command line. */
export interface DaemonFlags extends DaemonTarget {
  config: LspGateConfig;
  /** The sandbox wrapper and its description (from the front end's sandboxFor). */
  sandboxed: Sandboxed;
  /** The same for another root the daemon serves. */
  sandboxedFor?: (root: string) => Promise<Sandboxed>;
  trustedRoots: string[];
  /** The role of the command line (`--role`); default main. */
  role?: "main" | "subagent";
}

/** Stop a daemon nobody used for this long, unless the config says otherwise. */
export const DEFAULT_DAEMON_IDLE_MS = 15 * 60_000;

/**
 * `lspgate daemon start|stop|status|serve`: start (or find) the workspace's daemon, stop it,
 * show it, or be it (`serve`, what `start` runs in the background). Prints one JSON object.
 */
export async function runDaemonCommand(flags: DaemonFlags, args: string[]): Promise<number> {
  const [verb] = args;
  // The CLI's own role: a sub-agent's `daemon status` learns only of its own root.
  const hello = { role: flags.role ?? "main", allowMutations: false, client: "daemon-cli" };
  switch (verb) {
    case "serve":
      return await serve(flags);
    case "start": {
      const connection = await attachOrStart(flags, hello);
      if (!connection) {
        console.error(
          "lspgate: the daemon could not be started from here (it needs `deno run` with " +
            "--allow-run to start it; or run `lspgate daemon serve` yourself)",
        );
        return 1;
      }
      console.log(JSON.stringify(await connection.control("status")));
      connection.close();
      return 0;
    }
    case "status":
    case "stop": {
      const connection = await attach(flags, hello);
      if (!connection) {
        const { socketPath } = await daemonAddress(flags);
        console.log(JSON.stringify({ running: false, socket: socketPath }));
        return verb === "status" ? 3 : 0;
      }
      const status = await connection.control(verb);
      // After `stop` the daemon closes its side once it has stopped.
      if (verb === "stop") await connection.closed().catch(() => {});
      connection.close();
      console.log(JSON.stringify({ running: verb === "status", ...status }));
      return 0;
    }
    default:
      console.error("lspgate: usage: lspgate daemon start|stop|status [flags]");
      return 2;
  }
}

async function serve(flags: DaemonFlags): Promise<number> {
  const { socketPath, realRoot } = await daemonAddress(flags);
  // One budget over every root's servers: the daemon is what keeps them warm.
  const budget = new BudgetPool(budgetOf(flags.config.memoryBudgetMiB));
  const telemetry = telemetryFrom(flags.telemetry);
  const handler = rootsHandler({
    defaultRoot: realRoot,
    idleMs: flags.config.daemonIdleMs ?? DEFAULT_DAEMON_IDLE_MS,
    async open(root) {
      const sandboxed = root === realRoot || !flags.sandboxedFor
        ? flags.sandboxed
        : await flags.sandboxedFor(root);
      return await Session.open({
        root,
        // Each connection gets a view with its own role; the daemon's own is the ceiling.
        role: "main",
        allowMutations: true,
        adapters: ADAPTERS,
        config: flags.config,
        wrap: sandboxed.wrap,
        sandboxLabel: sandboxed.label,
        sandboxed: sandboxed.sandboxed,
        sandboxBackend: sandboxed.backend,
        // --trust is the first root's (such a daemon serves no other: see daemonAddress).
        trustedRoots: root === realRoot ? flags.trustedRoots : flags.config.trustedRoots,
        // Server events (start, ready, exit) of the warm servers every client shares.
        telemetry,
        budget,
        daemonPid: Deno.pid,
      });
    },
  });
  try {
    const daemon = await runDaemon({
      socketPath,
      handler,
      idleMs: flags.config.daemonIdleMs ?? DEFAULT_DAEMON_IDLE_MS,
    });
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      Deno.addSignalListener(signal, () => daemon.stop());
    }
    await daemon.done;
    return 0;
  } catch (error) {
    await handler.close();
    // Another daemon won the race to serve this workspace: it serves.
    if (error instanceof DaemonAlreadyRunning) return 0;
    throw error;
  }
}
