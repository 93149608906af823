/**
 * Confines a language server in a bubblewrap sandbox.
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

import { LspGateError } from "../errors.ts";

/** How a server is confined: not at all, by bubblewrap (or fail), or by bubblewrap when it works here. */
export type SandboxMode = "none" | "bwrap" | "auto";

/** What a sandboxed server may see besides the system's programs. */
export interface SandboxSpec {
  /** The workspace root; bound read-only unless `workspaceWritable`. */
  workspace: string;
  /** Bind the workspace read-write (only for servers that must write there). */
  workspaceWritable: boolean;
  /** Host paths bound read-only: the server's install folder, node, toolchains; missing ones are skipped. */
  readOnlyPaths: string[];
  /** Host paths bound read-write, e.g. a cache the server needs; created when missing. */
  writablePaths?: string[];
  /** Extra environment for the server; the host's environment is not passed through. */
  env?: Record<string, string>;
  /**
   * Absolute path of bubblewrap, found by the caller outside the workspace (a `bwrap` in a PATH
   * folder inside the workspace would be the repository's program). Default: `bwrap` on PATH.
   */
  bwrap?: string;
}

/** The argv to spawn and the server's private HOME (a path inside the sandbox only). */
export interface WrappedCommand {
  /** The argv to spawn: `bwrap ...flags -- ...command`, or the command itself when not sandboxed. */
  command: string[];
  /** HOME inside the sandbox (on its private `/tmp`), or undefined when not sandboxed. */
  home?: string;
  /** Whether the command runs in the sandbox. */
  sandboxed: boolean;
}

/**
 * The server's HOME inside the sandbox. It lives on the sandbox's private tmpfs
 * `/tmp`, so caches a server writes there vanish with it and nothing is written
 * on the host (Rationale: lspgate then needs no `--allow-write` to start a
 * server, and a crashed server leaves nothing to clean up).
 */
export const SANDBOX_HOME = "/tmp/lspgate-home";

/**
 * The system paths bound read-only so programs run. `/usr` is bound whole (the
 * simplest robust choice: interpreters, shared libraries and global npm
 * installs live there). `/etc` is NOT bound whole: it holds `shadow`, `npmrc`,
 * `gitconfig` and other files that may carry secrets, and a server has no
 * network to use TLS or DNS files with, so only what the loader, libc and node
 * read is bound.
 */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
const SYSTEM_ETC = [
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  // Debian's /usr/bin links through here (e.g. `nodejs`, `editor`).
  "/etc/alternatives",
  // node's os.userInfo() fails with ENOENT without a passwd entry; both files
  // are world-readable on the host and carry no secret.
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/localtime",
];

/** Host variables passed into the sandbox; everything else (tokens, keys) stays out. */
const PASSED_ENV = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ"];
const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

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

async function probeBwrap(program: string): Promise<BwrapSupport> {
  const base = [...systemBinds(), ...isolationFlags(false), "--clearenv"];
  const env = ["--setenv", "PATH", DEFAULT_PATH];
  const strict = await tryBwrap(program, [...base, ...userNamespaceFlags(), ...env, "--", "true"]);
  if (strict === undefined) return { available: true, disableUserns: true };
  // bwrap < 0.8 has no --disable-userns; a setuid bwrap may lack user namespaces.
  const plain = await tryBwrap(program, [...base, ...env, "--", "true"]);
  if (plain === undefined) return { available: true, disableUserns: false };
  return { available: false, disableUserns: false, reason: plain };
}

/** Runs bwrap with `args`; undefined on success, else why it failed. */
async function tryBwrap(program: string, args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(program, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (out.success) return undefined;
    const stderr = new TextDecoder().decode(out.stderr).trim();
    return `bwrap probe exited with code ${out.code}: ${stderr || "no output"}`;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "bwrap is not on PATH";
    return `bwrap could not be run: ${error instanceof Error ? error.message : error}`;
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
      `Cannot sandbox the language server: ${found.reason}. Install bubblewrap ` +
        `(apt-get install bubblewrap) where user namespaces are allowed, or set the sandbox mode to "none".`,
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

/**
 * Applies a {@link SandboxMode}: `"none"` returns `command` as is, `"bwrap"`
 * wraps it or throws `SERVER_START_FAILED`, `"auto"` wraps it when bubblewrap
 * works here and otherwise runs it unconfined.
 */
export async function sandboxCommand(
  mode: SandboxMode,
  command: string[],
  spec: SandboxSpec,
): Promise<WrappedCommand> {
  if (mode === "none" || (mode === "auto" && !(await bwrapAvailable(spec.bwrap)))) {
    return { command, sandboxed: false };
  }
  return await wrapCommand(command, spec);
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
  const env: Record<string, string> = { PATH: DEFAULT_PATH };
  for (const name of PASSED_ENV) {
    const value = envGet(name);
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, { HOME: SANDBOX_HOME, TMPDIR: "/tmp" }, extra);
  return ["--clearenv", ...Object.entries(env).flatMap(([k, v]) => ["--setenv", k, v])];
}

function envGet(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    // Without --allow-env for this name the default applies.
    return undefined;
  }
}

function readLink(path: string): string | undefined {
  try {
    return Deno.lstatSync(path).isSymlink ? Deno.readLinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

function realPath(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

function depth(path: string): number {
  return path.split("/").filter(Boolean).length;
}
