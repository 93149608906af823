import { attach, attachOrStart, daemonAddress, type DaemonTarget } from "./start.ts";
import { DaemonAlreadyRunning, runDaemon } from "./server.ts";
import { sessionHandler, type SessionOpener } from "./session_handler.ts";
import { forgetDaemonEnvironment } from "./daemon_env.ts";

/** What `lspgate daemon …` needs from the command line. */
export interface DaemonFlags extends DaemonTarget {
  /** Opens one workspace's session in the daemon (its sandbox and trust as its clients ask). */
  openSession: SessionOpener;
  /** The command line's `--role` (default main). */
  role?: "main" | "subagent";
}

/**
 * `lspgate daemon start|stop|status|serve`: start (or find) this user's daemon with the workspace's
 * session open, stop that session (the daemon ends with its last), show it, or be the daemon
 * (`serve`, what `start` runs in the background). Prints one JSON object.
 */
export async function runDaemonCommand(flags: DaemonFlags, args: string[]): Promise<number> {
  const [verb] = args;
  const hello = { role: flags.role ?? "main", allowMutations: false, client: "daemon-cli" };
  switch (verb) {
    case "serve":
      return await serve(flags);
    case "start": {
      // Its workspace's session opens now (status and stop open none).
      const connection = await attachOrStart(flags, { ...hello, client: "daemon-start" });
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
      try {
        const status = await connection.control(verb);
        // After `stop` the daemon closes its side once it has stopped.
        if (verb === "stop") await connection.closed().catch(() => {});
        console.log(JSON.stringify({ running: verb === "status", ...status }));
        return 0;
      } finally {
        connection.close();
      }
    }
    default:
      console.error("lspgate: usage: lspgate daemon start|stop|status [flags]");
      return 2;
  }
}

async function serve(flags: DaemonFlags): Promise<number> {
  // Before any server starts: what lspgate added for the daemon alone is not theirs.
  forgetDaemonEnvironment();
  const { socketPath } = await daemonAddress(flags);
  const handler = sessionHandler(flags.openSession);
  try {
    const daemon = await runDaemon({
      socketPath,
      handler,
      // Each workspace closes after its own config's daemonIdleMs; the daemon with the last.
      idleMs: 0,
    });
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      Deno.addSignalListener(signal, () => daemon.stop());
    }
    await daemon.done;
    return 0;
  } catch (error) {
    await handler.close();
    // Another daemon won the race to serve this user: it serves.
    if (error instanceof DaemonAlreadyRunning) return 0;
    throw error;
  }
}
