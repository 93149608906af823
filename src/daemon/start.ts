import { join, resolve } from "node:path";
import { V8_FLAGS_ARG } from "../v8_flags.ts";
import { fileURLToPath } from "node:url";
import type { LspGateConfig } from "../config.ts";
import { DaemonConnection } from "./client.ts";
import type { Hello } from "./server.ts";
import { socketFolder, socketPathFor } from "./socket_path.ts";

/** What identifies a workspace's daemon, and how to start it. */
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
 * The socket of the daemon for `target` and the config file it runs with: the effective config
 * written (mode 0600) beside the socket, so the daemon runs with exactly what its clients asked
 * for, and the socket's name is a hash of that config.
 *
 * One daemon serves all of a user's workspaces that share a config (each connection names its
 * root). It is one per root only with `--trust`, which makes that root's own programs part of the
 * daemon's identity. A client's Deno write grant is not: it caps the client's mutations on its
 * own side (see openGate), and the daemon writes only where its own grant allows.
 */
export async function daemonAddress(
  target: DaemonTarget,
): Promise<{ socketPath: string; configPath: string; realRoot: string }> {
  const realRoot = await Deno.realPath(target.root);
  // Role and mutations are per connection, not part of the daemon's identity.
  const { role: _role, allowMutations: _mutations, ...shared } = target.config;
  const key = JSON.stringify({ config: shared, sandbox: target.sandbox, trust: target.trust });
  const socketPath = await socketPathFor(target.trust ? realRoot : "", key);
  return { socketPath, configPath: socketPath.replace(/\.sock$/, ".config.json"), realRoot };
}

/** Connects to the workspace's daemon; undefined when none is running. */
export async function attach(
  target: DaemonTarget,
  hello: Hello,
): Promise<DaemonConnection | undefined> {
  const { socketPath, realRoot } = await daemonAddress(target);
  try {
    return await DaemonConnection.open(socketPath, { ...hello, root: hello.root ?? realRoot });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.ConnectionRefused) {
      return undefined;
    }
    throw error;
  }
}

/**
 * Connects to the workspace's daemon, starting one when there is none. Returns undefined when no
 * daemon can be started from this process (its Deno permissions do not allow spawning Deno with
 * the same grant): the caller then serves in-process.
 */
export async function attachOrStart(
  target: DaemonTarget,
  hello: Hello,
): Promise<DaemonConnection | undefined> {
  const attached = await attach(target, hello);
  if (attached) return attached;
  const args = await daemonCommand(target);
  if (!args) return undefined;
  try {
    new Deno.Command(Deno.execPath(), {
      args,
      cwd: await Deno.realPath(target.root),
      stdin: "null",
      stdout: "null",
      stderr: "null",
      detached: true,
    }).spawn().unref();
  } catch {
    return undefined;
  }
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const connection = await attach(target, hello).catch(() => undefined);
    if (connection) return connection;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/**
 * `deno run … mod.ts daemon serve` for `target`, with this process's own Deno grant and no more:
 * only a process that may run any program (unscoped `--allow-run`, as `deno task start` grants)
 * can start a daemon; a write grant on the root is passed on, else the daemon writes only its
 * socket.
 */
export async function daemonCommand(target: DaemonTarget): Promise<string[] | undefined> {
  const granted = (descriptor: Deno.PermissionDescriptor) =>
    Deno.permissions.querySync(descriptor).state === "granted";
  if (!granted({ name: "run" })) return undefined;
  const { configPath, realRoot } = await daemonAddress(target);
  const folder = await socketFolder();
  await Deno.writeTextFile(configPath, JSON.stringify(target.config), { mode: 0o600 });
  const permissions: string[] = [];
  for (const name of ["read", "env", "run", "net", "sys", "ffi"] as const) {
    if (granted({ name })) permissions.push(`--allow-${name}`);
  }
  if (!granted({ name: "read" })) return undefined;
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
    "--root",
    realRoot,
    "--config",
    configPath,
    "--sandbox",
    target.sandbox,
    ...(target.trust ? ["--trust"] : []),
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
