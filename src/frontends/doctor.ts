import { join } from "../posix_path.ts";
import { ACTIONS } from "../actions/table.ts";
import { userConfigPath, WORKSPACE_CONFIG } from "../config.ts";
import { attach, daemonAddress, NO_UNIX_SOCKETS, unixSocketsRefused } from "../daemon/start.ts";
import { toLspGateError } from "../errors.ts";
import { daemonSocketPath, runtimeFolderPath } from "../fs.ts";
import { decide } from "../permissions/policy.ts";
import { onPath } from "../servers/find_binary.ts";
import type { Session } from "../session.ts";
import { type GlobalFlags, openSession, sandboxFor } from "./main.ts";

/** One finding of `lspgate doctor`. */
export interface DoctorReport {
  version: string;
  root: string;
  role: string;
  allowMutations: boolean;
  configFiles: { path: string; kind: "user" | "workspace"; read: boolean }[];
  sandbox: {
    mode: string;
    /** The backend in force: "bwrap", "landlock" or "none". */
    backend: string;
    bwrap?: string;
    usable: boolean;
    reason?: string;
    label: string;
    enforced: string[];
    notEnforced: string[];
    /** Why bubblewrap is not used, when it was considered (installed but no namespaces, missing). */
    bwrapReason?: string;
    landlockAbi?: number;
    landlockReason?: string;
  };
  trustedRoots: string[];
  permissions: Record<string, string>;
  daemon: Record<string, unknown>;
  /** The servers' memory budget in MiB (null: none). */
  memoryBudgetMiB: number | null;
  servers: Record<string, unknown>[];
  actions: { allowed: string[]; refused: { action: string; reason: string }[] };
}

/**
 * `lspgate doctor`: what lspgate would do here and why — config files read, each server found or
 * missing (with how to install it), the sandbox, the Deno permissions granted, the daemon, and the
 * actions this role may run. Runs no language server. `--json` prints the report as one object.
 */
export async function runDoctor(flags: GlobalFlags): Promise<number> {
  const session = await openSession(flags);
  try {
    const report = await doctorReport(flags, session);
    console.log(flags.json ? JSON.stringify(report, null, 2) : describe(report));
    return 0;
  } finally {
    await session.close();
  }
}

/** Gathers the report (exported for tests). */
export async function doctorReport(flags: GlobalFlags, session: Session): Promise<DoctorReport> {
  const root = session.workspace.path;
  const userConfig = userConfigPath();
  const configFiles: DoctorReport["configFiles"] = [];
  if (userConfig) {
    configFiles.push({ path: userConfig, kind: "user", read: await isFile(userConfig) });
  }
  const local = join(root, WORKSPACE_CONFIG);
  configFiles.push({ path: local, kind: "workspace", read: await isFile(local) });

  const bwrap = await onPath("bwrap", root);
  // The probes are cached: this is the choice the session made.
  const { choice } = await sandboxFor(flags);
  const reason = flags.sandbox === "none"
    ? "sandbox none"
    : [choice.bwrapReason, choice.landlockReason && `Landlock: ${choice.landlockReason}`]
      .filter(Boolean).join("; ") || undefined;

  const servers = await session.handle({ id: "doctor", action: "servers" });
  const adapters = servers.ok ? (servers.details.adapters as Record<string, unknown>[]) : [];

  const allowed: string[] = [];
  const refused: { action: string; reason: string }[] = [];
  for (const [name, action] of ACTIONS) {
    // Write-class where an action can write at all (an apply, a raw mutating request).
    const access = typeof action.access === "function"
      ? action.access({ apply: true, query: "workspace/executeCommand" })
      : action.access;
    const decision = decide({
      action: name,
      access,
      role: session.facts.role,
      allowMutations: session.facts.allowMutations,
    });
    const conditional = typeof action.access === "function";
    if (decision.allow) allowed.push(conditional ? `${name} (also applying)` : name);
    else {
      // A preview (or a read-only raw request) stays allowed; only the write is refused.
      if (conditional) allowed.push(`${name} (preview only)`);
      refused.push({
        action: conditional ? `${name} that writes` : name,
        reason: decision.reason,
      });
    }
  }

  return {
    version: session.facts.version,
    root,
    role: session.facts.role,
    allowMutations: session.facts.allowMutations,
    configFiles,
    sandbox: {
      mode: flags.sandbox,
      backend: choice.backend,
      bwrap,
      usable: choice.backend !== "none" && choice.usable,
      reason: choice.backend !== "none" && choice.usable ? undefined : reason,
      label: session.facts.sandbox,
      enforced: choice.enforced,
      notEnforced: choice.notEnforced,
      bwrapReason: choice.bwrapReason,
      landlockAbi: choice.landlockAbi,
      landlockReason: choice.landlockReason,
    },
    trustedRoots: [...session.facts.trustedRoots],
    permissions: denoPermissions(root),
    daemon: await daemonState(flags),
    memoryBudgetMiB: session.manager.memory().budgetMiB ?? null,
    servers: adapters,
    actions: { allowed, refused },
  };
}

function denoPermissions(root: string): Record<string, string> {
  const state = (descriptor: Deno.PermissionDescriptor) =>
    Deno.permissions.querySync(descriptor).state;
  return {
    "read (everything)": state({ name: "read" }),
    "read (the root)": state({ name: "read", path: root }),
    "write (everything)": state({ name: "write" }),
    "write (the root)": state({ name: "write", path: root }),
    // What `deno task start` grants instead of the two above: lspgate's private folder alone.
    "write (lspgate's runtime folder)": state({ name: "write", path: runtimeFolderPath() }),
    "run (any program)": state({ name: "run" }),
    "env (any variable)": state({ name: "env" }),
    "net (everything)": state({ name: "net" }),
    "net (the daemon's socket)": state({ name: "net", host: `unix:${daemonSocketPath()}` }),
  };
}

async function daemonState(flags: GlobalFlags): Promise<Record<string, unknown>> {
  try {
    const target = {
      root: flags.root,
      config: flags.config,
      sandbox: flags.sandbox,
      trust: flags.trust,
    };
    const { socketPath } = await daemonAddress(target);
    const connection = await attach(target, {
      role: "subagent",
      allowMutations: false,
      client: "doctor",
    });
    if (!connection) {
      const refused = await unixSocketsRefused(socketPath);
      return {
        running: false,
        socket: socketPath,
        ...(refused ? { unavailable: NO_UNIX_SOCKETS } : {}),
      };
    }
    const status = await connection.control("status");
    connection.close();
    return { running: true, socket: socketPath, ...status };
  } catch (error) {
    return { running: false, problem: toLspGateError(error).message };
  }
}

function describe(report: DoctorReport): string {
  const lines = [
    `lspgate ${report.version} — root ${report.root}`,
    `role ${report.role}, mutations ${report.allowMutations ? "allowed" : "refused"}`,
    "",
    "Config files:",
    ...report.configFiles.map((f) => `  ${f.read ? "read " : "none "} ${f.kind}: ${f.path}`),
    "",
    `Sandbox (${report.sandbox.mode}, in force: ${report.sandbox.backend}): ${report.sandbox.label}` +
    (report.sandbox.bwrap ? ` [bwrap: ${report.sandbox.bwrap}]` : ""),
    ...report.sandbox.enforced.map((e) => `  enforced:     ${e}`),
    ...report.sandbox.notEnforced.map((e) => `  not enforced: ${e}`),
    ...(report.sandbox.bwrapReason ? [`  bubblewrap not used: ${report.sandbox.bwrapReason}`] : []),
    ...(report.sandbox.landlockReason
      ? [`  Landlock not used: ${report.sandbox.landlockReason}`]
      : []),
    report.trustedRoots.length
      ? `Trusted roots: ${report.trustedRoots.join(", ")}`
      : "Trusted roots: none (a project's own programs never run)",
    "",
    "Deno permissions:",
    ...Object.entries(report.permissions).map(([k, v]) => `  ${v.padEnd(8)} ${k}`),
    "",
    `Daemon: ${
      report.daemon.running
        ? `running (pid ${report.daemon.pid}, ${report.daemon.connections} connections)`
        : report.daemon.unavailable
        ? `unavailable: ${report.daemon.unavailable} (clients serve in their own process)`
        : report.daemon.problem
        ? `not usable: ${report.daemon.problem}`
        : "not running"
    }${report.daemon.socket ? ` — ${report.daemon.socket}` : ""}`,
    ...daemonServers(report.daemon),
    report.memoryBudgetMiB === null
      ? "Memory budget: none (memoryBudgetMiB 0)"
      : `Memory budget: ${report.memoryBudgetMiB} MiB for the servers together (memoryBudgetMiB, ` +
        "--memory-budget); over it idle servers stop, least recently used first",
    "",
    "Servers:",
    ...report.servers.map((s) => {
      const mark = s.disabled ? "off    " : s.installed ? "found  " : "missing";
      const tested = s.tested ? "" : " (untested)";
      const hint = s.installed || s.disabled ? "" : ` — ${s.installHint}`;
      const what = s.installed ? ` ${s.command}` : "";
      return `  ${mark} ${s.id}${tested}${what}${hint}`;
    }),
    "",
    `Actions this role may run: ${report.actions.allowed.join(", ")}`,
    ...report.actions.refused.map((r) => `  refused: ${r.action} — ${r.reason}`),
  ];
  return lines.join("\n");
}

/** The daemon's running servers and their memory, one line each. */
function daemonServers(daemon: Record<string, unknown>): string[] {
  const servers = (daemon.servers ?? []) as { server: string; state: string; rssMiB?: number }[];
  return servers.filter((s) => s.state === "running").map((s) =>
    `  ${s.server}: ${s.rssMiB === undefined ? "memory unknown" : `${s.rssMiB} MiB`}`
  );
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
