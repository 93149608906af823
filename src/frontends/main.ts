import { parseArgs } from "node:util";
import { ADAPTERS } from "../../adapters/mod.ts";
import { loadUserConfig, type LspGateConfig } from "../config.ts";
import { LspGateError, toLspGateError } from "../errors.ts";
import { bwrapAvailable, sandboxCommand, type SandboxMode } from "../lsp/sandbox.ts";
import type { Role } from "../permissions/policy.ts";
import type { CommandWrapper } from "../servers/manager.ts";
import { onPath, serverPath } from "../servers/find_binary.ts";
import { Session } from "../session.ts";
import { observeRequests, telemetryFrom } from "../telemetry.ts";
import { serversOff } from "../actions/syntax_only.ts";
import { serveJsonLines } from "./json_lines.ts";

/** Command-line flags shared by every front end. */
export interface GlobalFlags {
  root: string;
  role: Role;
  allowMutations: boolean;
  config: LspGateConfig;
  sandbox: SandboxMode;
  /** `--trust`: the root's own programs may run (sandboxed); also `trustedRoots` in the config. */
  trust: boolean;
  /** `--telemetry FILE`: JSON-lines events with timings appended there. */
  telemetry?: string;
  /** `call --json`: print the whole response. */
  json: boolean;
}

export const USAGE =
  `lspgate — language-server code intelligence for AI agents, as one \`lsp\` tool.

Usage:
  lspgate [flags]                 JSON lines on stdin/stdout (the primary interface)
  lspgate mcp [flags]             an MCP server over stdio with one \`lsp\` tool
  lspgate call ACTION [k=v ...]   one request from the command line, answer as text (--json: whole response)
  lspgate hook [flags] FILE...    diagnostics for edited files (for post-edit hooks)
  lspgate permissions [flags]     the exact \`deno run\` flags this workspace needs
  lspgate daemon start|stop|status  the workspace's warm daemon
  lspgate doctor [--json]         config files, servers found or missing, sandbox, permissions

Flags:
  --root DIR            workspace root (default: the current folder)
  --role main|subagent  subagent never runs a write action (default: main)
  --allow-mutations     let the main role apply edits (rename/format/code actions with apply)
  --config FILE         JSONC config: timeouts, sandbox, servers, readOnlyRoots
  --sandbox MODE        auto (default) | bwrap | none: run language servers under bubblewrap
  --trust               the root's own programs (node_modules/.bin, its TypeScript, its Python)
                        may run, sandboxed; never without a sandbox
  --timeout MS          per-request timeout (default 30000)
  --no-servers          run no language server: symbols and diagnostics answer syntax-only
  --telemetry FILE      append JSON-lines events with timings (also LSPGATE_TELEMETRY)
  --help                this text
`;

/** Parses flags; unknown flags are INVALID_INPUT. */
export async function parseFlags(args: string[]): Promise<{ flags: GlobalFlags; rest: string[] }> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      root: { type: "string" },
      role: { type: "string" },
      "allow-mutations": { type: "boolean" },
      config: { type: "string" },
      sandbox: { type: "string" },
      trust: { type: "boolean" },
      timeout: { type: "string" },
      json: { type: "boolean" },
      "no-servers": { type: "boolean" },
      telemetry: { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    Deno.exit(0);
  }
  // --config, else ~/.config/lspgate/config.jsonc when present; server ids are checked.
  const config = await loadUserConfig(values.config, { knownServers: ADAPTERS.map((a) => a.id) });
  if (values["no-servers"]) config.servers = serversOff(config.servers, ADAPTERS);
  const role = (values.role ?? config.role ?? "main") as Role;
  if (role !== "main" && role !== "subagent") {
    throw new LspGateError("INVALID_INPUT", `--role must be main or subagent, not ${role}`);
  }
  const sandbox = (values.sandbox ?? config.sandbox) as SandboxMode;
  if (!["none", "bwrap", "auto"].includes(sandbox)) {
    throw new LspGateError(
      "INVALID_INPUT",
      `--sandbox must be none, bwrap or auto, not ${sandbox}`,
    );
  }
  if (values.timeout !== undefined) {
    const ms = Number(values.timeout);
    if (!Number.isInteger(ms) || ms < 100) {
      throw new LspGateError("INVALID_INPUT", `--timeout must be milliseconds (>= 100)`);
    }
    config.timeoutMs = ms;
  }
  return {
    flags: {
      root: values.root ?? Deno.cwd(),
      role,
      // A sub-agent never mutates, whatever flag or config says; policy enforces it again.
      allowMutations: role === "main" &&
        (values["allow-mutations"] ?? config.allowMutations ?? false),
      config,
      sandbox,
      trust: values.trust ?? false,
      json: values.json ?? false,
      telemetry: values.telemetry,
    },
    rest: positionals,
  };
}

/** The sandbox wrapper for the chosen mode, and how `status` and every answer describe it. */
export async function sandboxFor(
  flags: GlobalFlags,
): Promise<{ wrap?: CommandWrapper; label: string; sandboxed: boolean }> {
  if (flags.sandbox === "none") {
    return { label: "no: servers are NOT confined (sandbox none)", sandboxed: false };
  }
  const workspace = await Deno.realPath(flags.root).catch(() => flags.root);
  // bubblewrap by absolute path, never from a PATH folder inside the workspace.
  const bwrap = await onPath("bwrap", workspace) ?? "/nonexistent/bwrap";
  if (flags.sandbox === "auto" && !(await bwrapAvailable(bwrap))) {
    return {
      label: "no: servers are NOT confined (sandbox auto: bubblewrap is not installed or not " +
        "usable here; `apt-get install bubblewrap`)",
      sandboxed: false,
    };
  }
  const readOnlyRoots = flags.config.readOnlyRoots;
  const wrap: CommandWrapper = async (command, { adapter }) => {
    const path = await serverPath(workspace);
    // Inside, only real paths are bound: a program reached through a symlink runs by its target.
    const program = await Deno.realPath(command.command[0]).catch(() => command.command[0]);
    const wrapped = await sandboxCommand(flags.sandbox, [program, ...command.command.slice(1)], {
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
    return { command: wrapped.command, hideProcessId: wrapped.sandboxed };
  };
  return {
    wrap,
    label: "yes (bubblewrap: read-only workspace, no network, own PID namespace)",
    sandboxed: true,
  };
}

/** The roots whose own programs may run (sandboxed): the config's `trustedRoots`, and `--trust`. */
export function trustedRootsOf(flags: GlobalFlags): string[] {
  return [...flags.config.trustedRoots, ...(flags.trust ? [flags.root] : [])];
}

/** Builds a session from flags; with `--telemetry` (or LSPGATE_TELEMETRY) its events are written. */
export async function openSession(flags: GlobalFlags): Promise<Session> {
  const sandbox = await sandboxFor(flags);
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
    trustedRoots: trustedRootsOf(flags),
  });
  return telemetry ? observeRequests(session, telemetry) : session;
}

/** What `lspgate daemon …` needs: the workspace, its config, and how servers are confined. */
export async function daemonFlags(flags: GlobalFlags) {
  return {
    root: flags.root,
    config: flags.config,
    sandbox: flags.sandbox,
    trust: flags.trust,
    sandboxed: await sandboxFor(flags),
    trustedRoots: trustedRootsOf(flags),
  };
}

/** The CLI entry: picks the front end from the first positional argument. */
export async function main(args: string[]): Promise<number> {
  try {
    const { flags, rest } = await parseFlags(args);
    const [command, ...more] = rest;
    switch (command) {
      case undefined: {
        const session = await openSession(flags);
        await serveJsonLines(session, Deno.stdin.readable, Deno.stdout.writable);
        return 0;
      }
      case "mcp": {
        const { serveMcp } = await import("./mcp.ts");
        return await serveMcp(await openSession(flags));
      }
      case "call": {
        const { runCall } = await import("./cli.ts");
        return await runCall(await openSession(flags), more, { json: flags.json });
      }
      case "hook": {
        const { runHook } = await import("./hook.ts");
        return await runHook(await openSession(flags), more);
      }
      case "doctor": {
        const { runDoctor } = await import("./doctor.ts");
        return await runDoctor(flags);
      }
      case "daemon": {
        const { runDaemonCommand } = await import("../daemon/command.ts");
        return await runDaemonCommand(await daemonFlags(flags), more);
      }
      case "permissions": {
        const { printPermissions } = await import("./permissions_cmd.ts");
        return await printPermissions(flags);
      }
      default:
        throw new LspGateError("INVALID_INPUT", `unknown command \`${command}\`\n\n${USAGE}`);
    }
  } catch (error) {
    const e = toLspGateError(error);
    console.error(`lspgate: ${e.code}: ${e.message}`);
    // For `hook`, exit 2 means "errors found" and is fed to the model: a usage error is 1 there.
    return args.includes("hook") ? 1 : 2;
  }
}
