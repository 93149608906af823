/**
 * The bubblewrap backend: confines a language server in namespaces of its own.
 *
 * Rationale: a process spawned by Deno is not bound by Deno's permissions, so
 * `--allow-run` on a server binary would otherwise hand a hostile repo (whose
 * config or plugins the server may execute) the whole machine. bubblewrap gives
 * the server its own mount, PID, network, IPC and UTS namespaces: it sees the
 * system's programs read-only, the workspace, its own install folders, and
 * nothing else of the host.
 *
 * Architecture Invariant: every path is bound at the same absolute path inside
 * as outside, so the `file://` URIs the client and the server exchange mean the
 * same file on both sides.
 *
 * @module
 */

import { LspGateError } from "../../errors.ts";
import { boundDelay } from "../client_util.ts";
import {
  DEFAULT_PATH,
  depth,
  realPath,
  type SandboxSpec,
  serverEnvironment,
  SYSTEM_DIRS,
  SYSTEM_ETC,
  type WrappedCommand,
} from "./common.ts";

/**
 * The server's HOME inside the sandbox. It lives on the sandbox's private tmpfs
 * `/tmp`, so caches a server writes there vanish with it and nothing is written
 * on the host (Rationale: lspgate then needs no `--allow-write` to start a
 * server, and a crashed server leaves nothing to clean up).
 */
export const SANDBOX_HOME = "/tmp/lspgate-home";

interface BwrapSupport {
  available: boolean;
  /** `--unshare-user --disable-userns` works (bwrap >= 0.8 and user namespaces allowed). */
  disableUserns: boolean;
  reason?: string;
}

const support = new Map<string, Promise<BwrapSupport>>();

/**
 * Whether bubblewrap (`program`, default `bwrap` on PATH) can confine a process here: it runs
 * and a trivial sandbox with the flags {@link wrapCommand} uses actually starts (some containers
 * forbid user namespaces). Probed once per program, then cached.
 */
export async function bwrapAvailable(program = "bwrap"): Promise<boolean> {
  return (await bwrapSupport(program)).available;
}

/** Why bubblewrap is not usable here, or undefined when it is. */
export async function bwrapUnavailableReason(program = "bwrap"): Promise<string | undefined> {
  return (await bwrapSupport(program)).reason;
}

function bwrapSupport(program: string): Promise<BwrapSupport> {
  let found = support.get(program);
  if (!found) {
    found = probeBwrap(program);
    support.set(program, found);
  }
  return found;
}

/** How long bubblewrap's probe may take before it counts as failed. */
const PROBE_TIMEOUT_MS = 5_000;
/** How the reason of a probe that ran out of time begins. */
const HUNG = "bubblewrap did not finish";

async function probeBwrap(program: string): Promise<BwrapSupport> {
  const base = [...systemBinds(), ...isolationFlags(false), "--clearenv"];
  const env = ["--setenv", "PATH", DEFAULT_PATH];
  const strict = await tryBwrap(program, [...base, ...userNamespaceFlags(), ...env, "--", "true"]);
  if (strict === undefined) return { available: true, disableUserns: true };
  // A bwrap that hangs would hang the second trial too.
  if (strict.startsWith(HUNG)) return { available: false, disableUserns: false, reason: strict };
  // bwrap < 0.8 has no --disable-userns; a setuid bwrap may lack user namespaces.
  const plain = await tryBwrap(program, [...base, ...env, "--", "true"]);
  if (plain === undefined) return { available: true, disableUserns: false };
  return { available: false, disableUserns: false, reason: plain };
}

/** Runs bwrap with `args`; undefined on success, else why it failed. */
async function tryBwrap(program: string, args: string[]): Promise<string | undefined> {
  let child: Deno.ChildProcess;
  try {
    // A group of its own, so that whatever bwrap leaves behind can be ended with it.
    child = new Deno.Command(program, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return "bubblewrap is not installed (apt-get install bubblewrap)";
    }
    if (error instanceof Deno.errors.NotCapable) {
      // `lspgate permissions` grants it only where it can create namespaces: not in sandbox-runtime.
      return `bubblewrap (${program}) may not be run by this process (no --allow-run for it; ` +
        "`lspgate permissions` leaves it out where it cannot create namespaces, as inside " +
        "sandbox-runtime or a container)";
    }
    return `bubblewrap (${program}) could not be run: ${
      error instanceof Error ? error.message : error
    }`;
  }
  // Inside sandbox-runtime a failed bwrap can leave its namespace's first process waiting forever
  // for the parent that died, holding stderr open: wait for bwrap's exit, not stderr's end.
  const chunks: string[] = [];
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const reading = (async () => {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      chunks.push(read.value);
    }
  })().catch(() => {});
  const probed = new AbortController();
  const status = await Promise.race([
    child.status,
    boundDelay(PROBE_TIMEOUT_MS, probed.signal).then(() => undefined),
  ]);
  probed.abort();
  endGroup(child);
  if (status === undefined) {
    // SIGKILL is delivered, not done: reap the hung bwrap (bounded) so nothing outlives the probe.
    const reaped = new AbortController();
    await Promise.race([child.status, boundDelay(1000, reaped.signal)]).catch(() => {});
    reaped.abort();
  }
  const read = new AbortController();
  await Promise.race([reading, boundDelay(200, read.signal)]);
  read.abort();
  await reader.cancel().catch(() => {});
  if (status?.success) return undefined;
  if (status === undefined) {
    return `${HUNG} a trial sandbox in ${PROBE_TIMEOUT_MS / 1000} s (${program})`;
  }
  const stderr = chunks.join("").trim();
  // Inside another sandbox (sandbox-runtime, a container, bubblewrap) namespaces cannot nest.
  return `bubblewrap (${program}) is installed but cannot create namespaces here: ` +
    `${stderr || `exit code ${status.code}`}`;
}

/** Kills `child`'s process group and what is left in it, best effort. */
function endGroup(child: Deno.ChildProcess): void {
  try {
    Deno.kill(-child.pid, "SIGKILL");
  } catch (error) {
    // ESRCH: nothing is left. NotCapable (a scoped --allow-run): bwrap itself, if still there.
    if (!(error instanceof Deno.errors.NotCapable)) return;
    try {
      child.kill("SIGKILL");
    } catch {
      // Gone already.
    }
  }
}

/**
 * Wraps `command` in a bubblewrap sandbox described by `spec` and returns the
 * argv to spawn. Throws `SERVER_START_FAILED` when bubblewrap is not usable.
 *
 * Inside, the server has: the system's programs read-only, `/proc`, a minimal
 * `/dev`, a private tmpfs `/tmp` holding its HOME ({@link SANDBOX_HOME}), the
 * workspace (read-only unless `spec.workspaceWritable`), `spec.readOnlyPaths`
 * and `spec.writablePaths`; no network, its own PID namespace, no capabilities,
 * a new session, and a host environment reduced to PATH and locale. Paths are
 * resolved with realpath and bound at that same path, so callers must use
 * realpath'd paths in `file://` URIs (the permission layer already does).
 *
 * The client must send `processId: null` in `initialize`: the server lives in
 * its own PID namespace, cannot see lspgate's PID, and pyright exits when the
 * given parent process "is gone".
 */
export async function wrapCommand(command: string[], spec: SandboxSpec): Promise<WrappedCommand> {
  const program = spec.bwrap ?? "bwrap";
  const found = await bwrapSupport(program);
  if (!found.available) {
    throw new LspGateError(
      "SERVER_START_FAILED",
      `Cannot sandbox the language server with bubblewrap: ${found.reason}. Use it where ` +
        `user namespaces are allowed, or set the sandbox mode to "auto" or "landlock".`,
      { reason: found.reason },
    );
  }
  const workspace = realPath(spec.workspace);
  if (workspace === undefined) {
    const message = `Workspace ${spec.workspace} does not exist.`;
    throw new LspGateError("FILE_NOT_FOUND", message, { path: spec.workspace });
  }
  const args = [
    ...systemBinds(),
    ...isolationFlags(true),
    ...(found.disableUserns ? userNamespaceFlags() : []),
    ...pathBinds(spec, workspace),
    "--chdir",
    workspace,
    ...environment(spec.env),
    "--",
    ...command,
  ];
  return { command: [program, ...args], home: SANDBOX_HOME, sandboxed: true };
}

function systemBinds(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    // On merged-/usr systems /bin, /lib... are symlinks into /usr: recreate the
    // link rather than binding the target a second time at the link's path.
    const target = readLink(dir);
    if (target !== undefined) args.push("--symlink", target, dir);
    else args.push("--ro-bind-try", dir, dir);
  }
  for (const path of SYSTEM_ETC) args.push("--ro-bind-try", path, path);
  return args;
}

function isolationFlags(withHome: boolean): string[] {
  return [
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    ...(withHome ? ["--dir", SANDBOX_HOME] : []),
    // Network, PID, IPC, UTS, cgroup (and user, where possible) namespaces.
    "--unshare-all",
    "--die-with-parent",
    // setsid(): the server cannot push keystrokes into a terminal with TIOCSTI.
    "--new-session",
    // Running as root, bwrap would otherwise keep every capability in the sandbox.
    "--cap-drop",
    "ALL",
  ];
}

/** A user namespace the server cannot nest another one in (less kernel attack surface). */
function userNamespaceFlags(): string[] {
  return ["--unshare-user", "--disable-userns"];
}

function pathBinds(spec: SandboxSpec, workspace: string): string[] {
  const binds: { path: string; flag: string }[] = [];
  for (const path of spec.readOnlyPaths) {
    const real = realPath(path);
    if (real !== undefined) binds.push({ path: real, flag: "--ro-bind" });
  }
  for (const path of spec.writablePaths ?? []) {
    if (realPath(path) === undefined) Deno.mkdirSync(path, { recursive: true });
    binds.push({ path: realPath(path)!, flag: "--bind" });
  }
  binds.push({ path: workspace, flag: spec.workspaceWritable ? "--bind" : "--ro-bind" });
  // Later mounts cover earlier ones: bind parents first, so a read-only folder
  // inside a writable workspace stays read-only and a read-only toolchain root
  // above the workspace does not hide it.
  binds.sort((a, b) => depth(a.path) - depth(b.path));
  const root = binds.find(({ path }) => path === "/");
  if (root !== undefined) {
    const message = "Binding / into the sandbox would undo it; name narrower paths.";
    throw new LspGateError("INVALID_INPUT", message, { flag: root.flag });
  }
  return binds.flatMap(({ path, flag }) => [flag, path, path]);
}

function environment(extra: Record<string, string> = {}): string[] {
  const env = serverEnvironment({ HOME: SANDBOX_HOME, TMPDIR: "/tmp" }, extra);
  return ["--clearenv", ...Object.entries(env).flatMap(([k, v]) => ["--setenv", k, v])];
}

function readLink(path: string): string | undefined {
  try {
    return Deno.lstatSync(path).isSymlink ? Deno.readLinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}
