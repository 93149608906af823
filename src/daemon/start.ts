import { VERSION } from "../version.ts";
import { join, resolve } from "../posix_path.ts";
import { V8_FLAGS_ARG } from "../v8_flags.ts";
import { fileURLToPath } from "../file_url.ts";
import type { LspGateConfig } from "../config.ts";
import { DaemonConnection, DaemonGoneError } from "./client.ts";
import type { Hello } from "./server.ts";
import { checkRuntimeEntry } from "../runtime_folder.ts";
import { LspGateError } from "../errors.ts";
import { daemonEnvironment } from "./daemon_env.ts";
import { daemonSocket, socketFolder } from "./socket_path.ts";

/** What identifies a workspace's session in the daemon, and how to start the daemon. */
export interface DaemonTarget {
  /** The workspace root as given. */
  root: string;
  config: LspGateConfig;
  sandbox: string;
  trust: boolean;
  /**
   * Where a daemon started for this target writes its server events (`--telemetry`); not part of
   * the daemon's identity: a running daemon keeps the file it was started with.
   */
  telemetry?: string;
}

const START_TIMEOUT_MS = 15_000;

/**
 * The socket of this user's daemon and what a connection says of `target`: the real root, and the
 * config, sandbox and trust it is served with (each (root, config) is its own session there).
 */
export async function daemonAddress(
  target: DaemonTarget,
): Promise<{ socketPath: string; realRoot: string; workspace: NonNullable<Hello["workspace"]> }> {
  const realRoot = await Deno.realPath(target.root);
  // Role and mutations are per connection, not part of the session's identity.
  const { role: _role, allowMutations: _mutations, ...shared } = target.config;
  return {
    socketPath: await daemonSocket(),
    realRoot,
    workspace: { root: realRoot, config: shared, sandbox: target.sandbox, trust: target.trust },
  };
}

/** Connects to this user's daemon for the workspace; undefined when none is running. */
export async function attach(
  target: DaemonTarget,
  hello: Hello,
): Promise<DaemonConnection | undefined> {
  const { socketPath, workspace } = await daemonAddress(target);
  // Only a socket of this user's: a planted symlink is refused, naming it.
  if (!checkRuntimeEntry(socketPath, "socket")) return undefined;
  try {
    return await DaemonConnection.open(socketPath, { ...hello, workspace });
  } catch (error) {
    // No daemon there, or one still dying (a killed daemon's socket can take a connection it
    // never answers): a new one is started. A refused hello is thrown.
    if (
      error instanceof Deno.errors.NotFound || error instanceof Deno.errors.ConnectionRefused ||
      error instanceof Deno.errors.ConnectionReset || error instanceof Deno.errors.BrokenPipe ||
      error instanceof DaemonGoneError
    ) {
      return undefined;
    }
    throw error;
  }
}

/**
 * Connects to this user's daemon for the workspace, starting one when there is none. Returns
 * undefined when no daemon can be started from this process (its Deno permissions do not allow
 * spawning Deno with the same grant, or the one started ended without serving): the caller then
 * serves in-process. PERMISSION_DENIED when this process may not use Unix sockets at all.
 */
export async function attachOrStart(
  target: DaemonTarget,
  hello: Hello,
): Promise<DaemonConnection | undefined> {
  const attached = await attach(target, hello);
  if (attached) return sameVersion(attached);
  const { socketPath } = await daemonAddress(target);
  // A Unix socket's path holds at most 107 bytes: a longer runtime folder can hold none (a
  // helper's find: the message blamed a missing --allow-run, the daemon an INTERNAL error).
  if (new TextEncoder().encode(socketPath).length > MAX_SOCKET_PATH_BYTES) {
    throw new LspGateError(
      "INVALID_INPUT",
      `the daemon's socket path ${socketPath} is longer than the ${MAX_SOCKET_PATH_BYTES} bytes ` +
        "a Unix socket's path may hold: set XDG_RUNTIME_DIR (or TMPDIR) to a shorter folder",
      { path: socketPath },
    );
  }
  // Inside a sandbox whose seccomp filter refuses Unix sockets (Anthropic's sandbox-runtime) no
  // daemon can be served or reached: said now, not after the start timeout.
  if (await unixSocketsRefused(socketPath)) {
    throw new LspGateError("PERMISSION_DENIED", NO_UNIX_SOCKETS, {
      path: socketPath,
      unixSocketsRefused: true,
    });
  }
  const args = await daemonCommand(target);
  if (!args) return undefined;
  let exited = false;
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args,
      // This process's environment, and glibc's malloc arenas capped (daemon_env.ts).
      env: daemonEnvironment(),
      // Outside every workspace: one the daemon serves may be deleted while it runs.
      cwd: await socketFolder(),
      stdin: "null",
      stdout: "null",
      stderr: "null",
      detached: true,
    }).spawn();
    child.unref();
    child.status.then(() => exited = true);
  } catch {
    return undefined;
  }
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const wasExited = exited;
    const connection = await attach(target, hello).catch(() => undefined);
    if (connection) return sameVersion(connection);
    // A daemon that ended without listening either failed to start or found another daemon
    // answering, which the attach just tried: nothing more to wait for.
    if (wasExited) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/**
 * `connection`, if its daemon is this lspgate's version; else it is closed and the error says so.
 * After an upgrade the old daemon went on serving its old code (and without its fixes) until it
 * idled out, and nothing said so (a helper's find): a client of another version serves itself,
 * and the daemon is left to its own clients (`lspgate daemon stop` replaces it).
 */
function sameVersion(connection: DaemonConnection): DaemonConnection {
  const version = connection.granted.version;
  if (version === VERSION) return connection;
  connection.close();
  throw new LspGateError(
    "SERVER_START_FAILED",
    `the daemon running is ${
      typeof version === "string" ? `lspgate ${version}` : "an earlier lspgate"
    }, this is ${VERSION}: stop it (\`lspgate daemon stop\`) and the next call starts one of ` +
      "this version",
    { daemonVersion: version ?? null },
  );
}

/** The longest path a Unix socket may have on Linux (sun_path's 108 bytes, less its NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

/** What a client that asked for the daemon says when attachOrStart() found none and started none. */
export const NO_DAEMON_HERE = "no daemon could be reached or started from here (starting one " +
  "takes --allow-run for any program, as `deno task start` grants)";

/** Why no daemon can be used where Unix sockets are refused. */
export const NO_UNIX_SOCKETS = "this process may not create Unix sockets (a sandbox's seccomp " +
  "filter refuses them, as sandbox-runtime's does): no daemon can be reached or started here";

/** Whether creating a Unix socket is refused here (a seccomp filter: EPERM, not a Deno grant). */
export async function unixSocketsRefused(socketPath: string): Promise<boolean> {
  try {
    (await Deno.connect({ transport: "unix", path: socketPath })).close();
    return false;
  } catch (error) {
    // EPERM is a filter's refusal; EACCES (a folder's mode) is not about sockets at all.
    return error instanceof Deno.errors.PermissionDenied &&
      (error as { code?: string }).code === "EPERM";
  }
}

/**
 * `deno run … mod.ts daemon serve`, with this process's own Deno grant and no more: only a process
 * that may run any program (unscoped `--allow-run`, as `deno task start` grants) can start the
 * daemon; a write grant on the root is passed on beside the runtime folder's, else the daemon
 * writes only there; net only for its one socket unless the whole network was granted.
 */
export async function daemonCommand(target: DaemonTarget): Promise<string[] | undefined> {
  const granted = (descriptor: Deno.PermissionDescriptor) =>
    Deno.permissions.querySync(descriptor).state === "granted";
  if (!granted({ name: "run" }) || !granted({ name: "read" })) return undefined;
  const { socketPath, realRoot } = await daemonAddress(target);
  const folder = await socketFolder();
  const permissions: string[] = [];
  for (const name of ["read", "env", "run", "sys", "ffi"] as const) {
    if (granted({ name })) permissions.push(`--allow-${name}`);
  }
  permissions.push(granted({ name: "net" }) ? "--allow-net" : `--allow-net=unix:${socketPath}`);
  if (granted({ name: "write" })) permissions.push("--allow-write");
  else if (granted({ name: "write", path: realRoot })) {
    permissions.push(`--allow-write=${realRoot},${folder}`);
  } else permissions.push(`--allow-write=${folder}`);
  const main = Deno.mainModule.startsWith("file:") ? fileURLToPath(Deno.mainModule) : undefined;
  if (!main) return undefined;
  const config = await denoConfigBeside(main);
  return [
    "run",
    "--no-prompt",
    "--unstable-worker-options",
    // The longest-lived lspgate process of all: its isolates sized as every lspgate's are.
    V8_FLAGS_ARG,
    ...(config ? ["--config", config] : []),
    ...permissions,
    main,
    "daemon",
    "serve",
    ...(target.telemetry ? ["--telemetry", resolve(target.telemetry)] : []),
  ];
}

/** lspgate's own deno.json when running from its checkout (imports, nodeModulesDir). */
async function denoConfigBeside(main: string): Promise<string | undefined> {
  const candidate = join(main, "..", "deno.json");
  try {
    await Deno.stat(candidate);
    return candidate;
  } catch {
    return undefined;
  }
}
