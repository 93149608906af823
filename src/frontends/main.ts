// The CLI entry: front ends chosen from the command line, sessions and gates opened, servers
// confined as the flags say. What serves in this process (sessions, adapters, sandboxes) is
// imported when a session opens here: a client of the warm daemon never loads it.
import { toLspGateError } from "../errors.ts";
import type { SandboxBackend, SandboxChoice } from "../lsp/sandbox.ts";
import type { CommandWrapper } from "../servers/manager.ts";
import type { Session } from "../session.ts";
import type { BudgetPool } from "../servers/budget.ts";
import { observeRequests, telemetryFrom } from "../telemetry.ts";
import { attachOrStart, NO_DAEMON_HERE } from "../daemon/start.ts";
import { RemoteSession } from "../daemon/remote_session.ts";
import type { Gate } from "./gate.ts";
import type { DaemonFlags } from "../daemon/command.ts";
import { hookFailure } from "./hook.ts";
import { serveJsonLines } from "./json_lines.ts";
import { onStopSignal } from "./signals.ts";
import { commandOf, envIfGranted, type GlobalFlags, parseFlags, UsageError } from "./flags.ts";
export {
  commandOf,
  defaultRoot,
  type GlobalFlags,
  type ParsedFlags,
  parseFlags,
  USAGE,
  UsageError,
} from "./flags.ts";

/** How servers are confined here: the wrapper, its description, and the backend in force. */
export interface SandboxInForce {
  wrap?: CommandWrapper;
  /** One line for `status` and every front end: in force or not, what it does and does not do. */
  label: string;
  /** Whether servers run confined (or, for a backend that does not work here, not at all). */
  sandboxed: boolean;
  backend: SandboxBackend;
  choice: SandboxChoice;
}

/** The sandbox wrapper for the chosen mode, and how `status` and every answer describe it. */
export async function sandboxFor(flags: GlobalFlags): Promise<SandboxInForce> {
  const [{ chooseSandbox, sandboxCommand }, { onPath, serverPath }] = await Promise.all([
    import("../lsp/sandbox.ts"),
    import("../servers/find_binary.ts"),
  ]);
  const workspace = await Deno.realPath(flags.root).catch(() => flags.root);
  // bubblewrap by absolute path, never from a PATH folder inside the workspace.
  const bwrap = flags.sandbox === "none" || flags.sandbox === "landlock"
    ? undefined
    : await onPath("bwrap", workspace) ?? "/nonexistent/bwrap";
  const choice = await chooseSandbox(flags.sandbox, { bwrap });
  const { backend, label } = choice;
  if (backend === "none") return { label, sandboxed: false, backend, choice };
  const readOnlyRoots = flags.config.readOnlyRoots;
  const wrap: CommandWrapper = async (command, { adapter }) => {
    const path = serverPath(workspace);
    // Inside, only real paths are shown: a program reached through a symlink runs by its target.
    const program = await Deno.realPath(command.command[0]).catch(() => command.command[0]);
    const wrapped = await sandboxCommand(backend, [program, ...command.command.slice(1)], {
      // The whole workspace, not just the project root: packages import their siblings.
      workspace,
      workspaceWritable: false,
      // Only the root, the server's install folder and the configured read-only roots are seen.
      readOnlyPaths: [
        ...(command.installDir ? [command.installDir] : []),
        ...readOnlyRoots,
        // What the adapter found the server needs to read: a toolchain, a module cache.
        ...(command.readOnlyPaths ?? []),
      ],
      // PATH inside leaves out folders inside the workspace, as outside.
      env: { ...(path === undefined ? {} : { PATH: path }), ...adapter.env, ...command.env },
      bwrap,
    });
    return { command: wrapped.command, hideProcessId: wrapped.sandboxed, cleanup: wrapped.cleanup };
  };
  return { wrap, label, sandboxed: true, backend, choice };
}

/** The roots whose own programs may run (sandboxed): the config's `trustedRoots`, and `--trust`. */
export function trustedRootsOf(flags: GlobalFlags): string[] {
  return [...flags.config.trustedRoots, ...(flags.trust ? [flags.root] : [])];
}

/**
 * Builds a session from flags; with `--telemetry` (or LSPGATE_TELEMETRY) its events are written.
 * `forLife`: the session lasts as long as this process (a front end's own), so its watcher runs
 * on this thread instead of a Worker of its own.
 */
export async function openSession(
  flags: GlobalFlags,
  { forLife = false }: { forLife?: boolean } = {},
): Promise<Session> {
  // The sandbox's probe (bubblewrap's, ~8 ms) runs while the session's modules load.
  const [{ Session, ADAPTERS }, sandbox] = await Promise.all([serving(), sandboxFor(flags)]);
  const telemetry = telemetryFrom(flags.telemetry);
  const session = await Session.open({
    telemetry,
    root: flags.root,
    role: flags.role,
    allowMutations: flags.allowMutations,
    adapters: ADAPTERS,
    config: flags.config,
    wrap: sandbox.wrap,
    sandboxLabel: sandbox.label,
    sandboxed: sandbox.sandboxed,
    sandboxBackend: sandbox.backend,
    trustedRoots: trustedRootsOf(flags),
    watchInThread: forLife,
  });
  return telemetry ? observeRequests(session, telemetry) : session;
}

/** The post-edit hook's deadline on a warm daemon, as other agents' LSP modules ship it. */
const WARM_HOOK_DEADLINE_MS = 1_500;

/**
 * The session a front end answers through: the workspace's warm daemon (started when there is
 * none) for `call` and `hook` unless `--no-daemon`, and for JSON lines and `mcp` with `--daemon`;
 * else one in this process. A daemon that cannot be reached or started here (this process may not
 * spawn Deno) falls back to the in-process session. LSPGATE_NO_DAEMON=1 turns the default off.
 * `forLife`: an in-process session lasts as long as this process (see openSession).
 */
export async function openGate(
  flags: GlobalFlags,
  client: string,
  { forLife = false }: { forLife?: boolean } = {},
): Promise<Gate> {
  const byDefault = client === "call" || client === "hook";
  const wanted = flags.daemon === "on" ||
    (flags.daemon === "auto" && byDefault && envIfGranted("LSPGATE_NO_DAEMON") !== "1");
  if (wanted) {
    const { target, hello } = daemonAsk(flags, client);
    try {
      const connection = await attachOrStart(target, hello);
      if (connection) {
        const remote = await RemoteSession.over(connection, {
          root: flags.root,
          readOnlyRoots: flags.config.readOnlyRoots,
          // A daemon that went away (stopped, killed) is found or started again for the next
          // request.
          reconnect: () => attachOrStart(target, hello),
        });
        const telemetry = telemetryFrom(flags.telemetry);
        return telemetry ? observeRequests(remote, telemetry) : remote;
      }
      // Asked for (--daemon) and not there: said, as a refusal is below.
      if (flags.daemon === "on") {
        console.error(`lspgate: ${NO_DAEMON_HERE}; serving in-process`);
      }
    } catch (error) {
      const e = toLspGateError(error);
      // Said where the daemon was asked for; by default (call, hook) a sandbox without Unix
      // sockets is expected, and an agent reading the output needs no line about it each time.
      if (flags.daemon === "on" || !e.data?.unixSocketsRefused) {
        console.error(
          `lspgate: the daemon could not be used (${e.code}: ${e.message}); serving in-process`,
        );
      }
    }
  }
  return await openSession(flags, { forLife });
}

/** What a client asks the daemon for: the workspace (target) and its connection's hello. */
export function daemonAsk(flags: GlobalFlags, client: string) {
  const target = {
    root: flags.root,
    config: flags.config,
    sandbox: flags.sandbox,
    trust: flags.trust,
    telemetry: flags.telemetry,
  };
  // This process's own Deno grant stays the ceiling: a daemon does not write for a client that
  // could not write itself.
  const mayWrite = flags.allowMutations && writeGranted(flags.root);
  if (flags.allowMutations && !mayWrite) {
    console.error(
      `lspgate: --allow-mutations without Deno write permission on ${flags.root}: ` +
        "the daemon will not write for this process (grant --allow-write for the root)",
    );
  }
  return { target, hello: { role: flags.role, allowMutations: mayWrite, client } };
}

/** Whether this process may write to `path` (Deno's permission, never a prompt). */
function writeGranted(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "write", path }).state === "granted";
  } catch {
    return false;
  }
}

const budgetPools = new Map<number | undefined, BudgetPool>();

/** What serving in this process takes: the session, the adapters, the memory budget. */
async function serving() {
  const [{ Session, budgetOf }, { ADAPTERS }, { BudgetPool }] = await Promise.all([
    import("../session.ts"),
    import("../../adapters/mod.ts"),
    import("../servers/budget.ts"),
  ]);
  return { Session, budgetOf, ADAPTERS, BudgetPool };
}

/** The daemon's memory budget pool for a configured budget: shared by every workspace asking it. */
async function budgetPool(configured: number | undefined): Promise<BudgetPool> {
  const { budgetOf, BudgetPool } = await serving();
  const budget = budgetOf(configured);
  let pool = budgetPools.get(budget);
  if (!pool) budgetPools.set(budget, pool = new BudgetPool(budget));
  return pool;
}

/**
 * What `lspgate daemon …` needs: the workspace, its config, and how the daemon opens the session
 * of each workspace its clients name (servers confined as that client's flags say).
 */
export function daemonFlags(flags: GlobalFlags): DaemonFlags {
  // One telemetry file for the daemon's life: the one its starter named.
  const telemetry = telemetryFrom(flags.telemetry);
  return {
    root: flags.root,
    config: flags.config,
    sandbox: flags.sandbox,
    trust: flags.trust,
    telemetry: flags.telemetry,
    role: flags.role,
    openSession: async (target) => {
      const { Session, ADAPTERS } = await serving();
      const own: GlobalFlags = { ...flags, ...target, role: "main", allowMutations: true };
      const sandbox = await sandboxFor(own);
      return await Session.open({
        root: target.root,
        // Each connection gets a view with its own role; the daemon's own is the ceiling.
        role: "main",
        allowMutations: true,
        adapters: ADAPTERS,
        config: target.config,
        wrap: sandbox.wrap,
        sandboxLabel: sandbox.label,
        sandboxed: sandbox.sandboxed,
        sandboxBackend: sandbox.backend,
        trustedRoots: trustedRootsOf(own),
        // Server events (start, ready, exit) of the warm servers every client shares.
        telemetry,
        // One budget over the servers of every workspace the daemon serves (per budget asked).
        budget: await budgetPool(target.config.memoryBudgetMiB),
        daemonPid: Deno.pid,
      });
    },
  };
}

/**
 * The CLI entry: picks the front end from the first positional argument and returns the exit
 * code. A bad command line prints `lspgate: usage: …` and a hint to `--help` and returns 2; any
 * other failure prints `lspgate: CODE: message` and returns 1. For `hook`, every failure of
 * lspgate's own is one `lspgate hook: …` line and 0: the hook never fails the agent's edit.
 * `ownsProcess`: the caller exits when main returns (lspgate run as a program), so a session
 * served here may keep its watcher on this thread (see openSession); false when main is called
 * as a library function.
 */
export async function main(
  args: string[],
  { ownsProcess = false }: { ownsProcess?: boolean } = {},
): Promise<number> {
  const hook = commandOf(args) === "hook";
  const own = { forLife: ownsProcess };
  try {
    const parsed = await parseFlags(args);
    if (parsed.print !== undefined) {
      console.log(parsed.print);
      return 0;
    }
    const { flags, rest: [command, ...more] } = parsed;
    switch (command) {
      case undefined: {
        const session = await openGate(flags, "jsonl", own);
        // SIGTERM or SIGINT ends the session as the end of input does: servers shut down, the watcher's
        // barrier folder removed (Deno's default would leave both behind).
        const unlisten = onStopSignal(() => void session.close().finally(() => Deno.exit(0)));
        try {
          await serveJsonLines(session, Deno.stdin, Deno.stdout);
        } finally {
          unlisten();
        }
        return 0;
      }
      case "mcp": {
        let served = flags;
        // Through the daemon the client only relays lines (the daemon serves the tool); with
        // --telemetry it serves MCP itself, which is where request events are written.
        if (flags.daemon === "on" && !flags.telemetry) {
          const { forwardMcp } = await import("./mcp_forward.ts");
          const { target, hello } = daemonAsk(flags, "mcp");
          const code = await forwardMcp(target, hello);
          if (code !== undefined) return code;
          // No daemon could be used (said): served here, without trying the daemon again.
          served = { ...flags, daemon: "off" };
        }
        const { serveMcp } = await import("./mcp.ts");
        return await serveMcp(await openGate(served, "mcp", own));
      }
      case "call": {
        const { runCall } = await import("./cli.ts");
        return await runCall(await openGate(flags, "call", own), more, { json: flags.json });
      }
      case "hook": {
        const { runHook } = await import("./hook.ts");
        const telemetry = telemetryFrom(flags.telemetry);
        const started = performance.now();
        telemetry?.emit("hook.start", { files: more.length, kind: flags.event ?? "post" });
        const gate = await openGate(flags, "hook", own);
        const warm = gate instanceof RemoteSession;
        const code = await runHook(gate, more, {
          deadlineMs: flags.config.hookDeadlineMs ?? (warm ? WARM_HOOK_DEADLINE_MS : undefined),
          event: flags.event,
        });
        telemetry?.emit("hook.stop", {
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
          exit: code,
          warm,
        });
        await telemetry?.flush();
        return code;
      }
      case "doctor": {
        const { runDoctor } = await import("./doctor.ts");
        return await runDoctor(flags);
      }
      case "daemon": {
        const { runDaemonCommand } = await import("../daemon/command.ts");
        return await runDaemonCommand(daemonFlags(flags), more);
      }
      case "permissions": {
        const { printPermissions } = await import("./permissions_cmd.ts");
        return await printPermissions(flags, flags.json);
      }
      default:
        throw new UsageError(
          `unknown command \`${command}\`; one of mcp, call, hook, permissions, daemon, doctor`,
        );
    }
  } catch (error) {
    const usage = error instanceof UsageError;
    const e = usage ? undefined : toLspGateError(error);
    if (hook) {
      return hookFailure(
        usage ? `usage: ${error.message} (see lspgate --help)` : `${e!.code}: ${e!.message}`,
      );
    }
    if (usage) {
      console.error(
        `lspgate: usage: ${error.message}\nRun \`lspgate --help\` for the flags and commands.`,
      );
      return 2;
    }
    console.error(`lspgate: ${e!.code}: ${e!.message}`);
    return 1;
  }
}
