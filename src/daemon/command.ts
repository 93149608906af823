import { ADAPTERS } from "../../adapters/mod.ts";
import { telemetryFrom } from "../telemetry.ts";
import type { LspGateConfig } from "../config.ts";
import { Session } from "../session.ts";
import { attach, attachOrStart, daemonAddress, type DaemonTarget } from "./start.ts";
import { DaemonAlreadyRunning, runDaemon } from "./server.ts";
import { sessionHandler } from "./session_handler.ts";
import type { CommandWrapper } from "../servers/manager.ts";

/** What `lspgate daemon …` needs from the command line. */
export interface DaemonFlags extends DaemonTarget {
  config: LspGateConfig;
  /** The sandbox wrapper and its description (from the front end's sandboxFor). */
  sandboxed: {
    wrap?: CommandWrapper;
    label: string;
    sandboxed: boolean;
    backend?: "bwrap" | "landlock" | "none";
  };
  trustedRoots: string[];
}

/** Stop a daemon nobody used for this long, unless the config says otherwise. */
export const DEFAULT_DAEMON_IDLE_MS = 15 * 60_000;

/**
 * `lspgate daemon start|stop|status|serve`: start (or find) the workspace's daemon, stop it,
 * show it, or be it (`serve`, what `start` runs in the background). Prints one JSON object.
 */
export async function runDaemonCommand(flags: DaemonFlags, args: string[]): Promise<number> {
  const [verb] = args;
  const hello = { role: "main" as const, allowMutations: false, client: "daemon-cli" };
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
  const session = await Session.open({
    root: realRoot,
    // Each connection gets a view with its own role; the daemon's own is the ceiling.
    role: "main",
    allowMutations: true,
    adapters: ADAPTERS,
    config: flags.config,
    wrap: flags.sandboxed.wrap,
    sandboxLabel: flags.sandboxed.label,
    sandboxed: flags.sandboxed.sandboxed,
    sandboxBackend: flags.sandboxed.backend,
    trustedRoots: flags.trustedRoots,
    // Server events (start, ready, exit) of the warm servers every client shares.
    telemetry: telemetryFrom(flags.telemetry),
  });
  const writable =
    Deno.permissions.querySync({ name: "write", path: realRoot }).state === "granted";
  try {
    const daemon = await runDaemon({
      socketPath,
      handler: sessionHandler(session, { writable }),
      idleMs: flags.config.daemonIdleMs ?? DEFAULT_DAEMON_IDLE_MS,
    });
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      Deno.addSignalListener(signal, () => daemon.stop());
    }
    await daemon.done;
    return 0;
  } catch (error) {
    await session.close();
    // Another daemon won the race to serve this workspace: it serves.
    if (error instanceof DaemonAlreadyRunning) return 0;
    throw error;
  }
}
