// Real lspgate processes sharing one workspace's daemon, for the daemon's and the warm hook's
// integration tests: a fixture copy, a private runtime folder (so the daemon is the test's own),
// and `lspgate …` runs that all reach the same daemon.
import assert from "node:assert/strict";
import { join } from "node:path";
import { type FixtureName, TempWorkspace } from "./workspace.ts";
import { defaultConfig, loadUserConfig } from "../../src/config.ts";
import { ADAPTERS } from "../../adapters/mod.ts";
import type { Hello } from "../../src/daemon/server.ts";
import { REPO_ROOT } from "./program.ts";

/** lspgate's entry. */
export const MOD = join(import.meta.dirname!, "..", "..", "mod.ts");
/** The fault-injection server (tests/fakes/fake_server.ts). */
export const FAKE_SERVER = join(import.meta.dirname!, "..", "fakes", "fake_server.ts");

/** Options of daemonWorkspace(): the fixture, flags every run gets (a config, a sandbox), env. */
export interface DaemonWorkspaceOptions {
  fixture?: FixtureName;
  /** Given to every run, so every run (and the cleanup's `daemon stop`) finds the same daemon. */
  flags?: string[];
  env?: Record<string, string>;
}

/** What a finished `lspgate …` run said. */
export interface RunOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** What `lspgate daemon status` prints. */
export interface DaemonStatus {
  running: boolean;
  /** The daemon's pid. */
  pid?: number;
  requests: number;
  connections: number;
  servers: { server: string; state: string; pid?: number }[];
}

/** How runToEnd() runs a program. */
export interface RunOptions {
  env?: Record<string, string>;
  /** Only `env` is set. */
  clearEnv?: boolean;
  cwd?: string;
  /** Written to the program's input, which is then closed (else it has none). */
  stdin?: string;
}

/** Runs `command ARGS` to its end: its exit code and output. */
export async function runToEnd(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<RunOutput> {
  const { env, clearEnv = false, cwd, stdin } = options;
  const child = new Deno.Command(command, {
    args,
    env,
    clearEnv,
    cwd,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const out = await child.output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** `deno run -A mod.ts ARGS` to its end (see runToEnd). */
export function runLspgate(args: string[], options: RunOptions = {}): Promise<RunOutput> {
  return runToEnd(Deno.execPath(), ["run", "-A", MOD, ...args], options);
}

/**
 * A fixture copy and a private runtime folder; `run(args, stdin?)` runs `lspgate ARGS FLAGS
 * --root WS` with the daemon on by default, `daemon()` is the daemon's status, `socket()` its one
 * socket, and `cleanup()` stops it and removes both folders.
 */
export async function daemonWorkspace(options: DaemonWorkspaceOptions = {}) {
  const ws = await TempWorkspace.copy(options.fixture ?? "deno");
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_rt_" }));
  await Deno.chmod(runtime, 0o700);
  const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0", ...options.env };
  const flags = options.flags ?? [];
  const run = (args: string[], stdin?: string): Promise<RunOutput> =>
    runLspgate([...args, ...flags, "--root", ws.root], { env, stdin });
  const daemon = async () => JSON.parse((await run(["daemon", "status"])).stdout) as DaemonStatus;
  const socket = () => {
    const folder = join(runtime, "lspgate");
    const sockets = [...Deno.readDirSync(folder)].filter((e) => e.name.endsWith(".sock"));
    assert.equal(sockets.length, 1, sockets.map((e) => e.name).join());
    return join(folder, sockets[0].name);
  };
  const cleanup = async () => {
    await run(["daemon", "stop"]);
    await ws.remove();
    await Deno.remove(runtime, { recursive: true });
  };
  return { ws, runtime, env, run, daemon, socket, cleanup };
}

/**
 * What a hello says of the workspace at `root` for a client run with `--config FILE` (else no
 * config) and `--sandbox`: the session `lspgate call` and `hook` reach with those flags.
 */
export async function workspaceHello(
  root: string,
  options: { config?: string; sandbox?: string } = {},
): Promise<Hello["workspace"]> {
  const loaded = options.config
    ? await loadUserConfig(options.config, { knownServers: ADAPTERS.map((a) => a.id) })
    : defaultConfig();
  const { role: _role, allowMutations: _mutations, ...config } = loaded;
  return {
    root: await Deno.realPath(root),
    config,
    sandbox: options.sandbox ?? "auto",
    trust: false,
  };
}

/** A user config file (JSON) holding `config`; the caller removes it. */
export async function configFile(config: Record<string, unknown>): Promise<string> {
  const file = await Deno.makeTempFile({ prefix: "lspgate_daemon_config_", suffix: ".json" });
  await Deno.writeTextFile(file, JSON.stringify(config));
  return file;
}

/** Polls `check` until it holds; gives up after a minute (a hang guard, not a timing assertion). */
export async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Exit 0, nothing on stdout, exactly one `lspgate hook: …` line on stderr matching `line`. */
export function assertQuiet(out: RunOutput, line: RegExp): void {
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, "");
  assert.match(out.stderr, /^lspgate hook: [^\n]*\n$/);
  assert.match(out.stderr.trimEnd(), line);
}

/**
 * A Claude Code hook payload: PostToolUse for a Write of `file` (absolute; with `original`, the
 * file's text before it, as Claude Code sends it), or Stop.
 */
export function hookPayload(
  session: string,
  event: "PostToolUse" | "Stop",
  options: { file?: string; stopHookActive?: boolean; original?: string } = {},
): string {
  return JSON.stringify({
    session_id: session,
    hook_event_name: event,
    ...(event === "Stop" ? { stop_hook_active: options.stopHookActive ?? false } : {
      tool_name: "Write",
      tool_input: { file_path: options.file },
      // Claude Code's Write and Edit answers carry the file's text from before the edit.
      ...(options.original === undefined
        ? {}
        : { tool_response: { filePath: options.file, originalFile: options.original } }),
    }),
  });
}

/** A private runtime folder (so one daemon of its own), and the start task's command line. */
export async function runtimeFolder() {
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_rt_" }));
  await Deno.chmod(runtime, 0o700);
  const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0", NO_COLOR: "1" };
  const start = (root: string, ...args: string[]) =>
    [Deno.execPath(), "task", "--quiet", "start", ...args, "--root", root] as const;
  const daemonPid = async (root: string) => {
    const [command, ...args] = start(root, "daemon", "status");
    const out = await runToEnd(command, args, { cwd: REPO_ROOT, env });
    return (JSON.parse(out.stdout) as { pid?: number }).pid;
  };
  const cleanup = async (root: string) => {
    const [command, ...args] = start(root, "daemon", "stop");
    await runToEnd(command, args, { cwd: REPO_ROOT, env });
    await Deno.remove(runtime, { recursive: true });
  };
  return { env, start, daemonPid, cleanup };
}
