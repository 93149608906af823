// lspgate as the README and deno.json give it to a user, for the tests that run it so: the README's
// `deno install -g` line into a folder of the test's own, its Claude Code hook commands through
// `sh -c`, `deno task start` itself — never with -A.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "./program.ts";
import { type RunOutput, runToEnd } from "./daemon.ts";
import { TempWorkspace } from "./workspace.ts";
import { streamLines } from "./line_process.ts";

/** The command of the README's Claude Code settings for `event`, as written. */
async function readmeHook(event: "SessionStart" | "PostToolUse" | "Stop"): Promise<string> {
  const readme = await Deno.readTextFile(join(REPO_ROOT, "README.md"));
  const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1])
    .find((text) => text.includes('"PostToolUse"'));
  assert.ok(block, "the README gives Claude Code's hook settings as a json block");
  const settings = JSON.parse(block) as {
    hooks: Record<string, { hooks: { command: string }[] }[]>;
  };
  const command = settings.hooks[event][0].hooks[0].command;
  assert.match(command, /^lspgate hook /);
  return command;
}

/** The README's `deno install -g` line, pointed at this checkout. */
async function readmeInstall(): Promise<string> {
  const readme = await Deno.readTextFile(join(REPO_ROOT, "README.md"));
  const install = readme.split("\n").find((line) => line.startsWith("deno install -g "));
  assert.ok(install, "the README gives a `deno install -g` line");
  assert.ok(!/ -A | --allow-all /.test(install), install);
  return install.replaceAll("/path/to/lspgate", REPO_ROOT.replace(/\/$/, ""));
}

/** A fixture copy, a private runtime folder, and lspgate run as the README and deno.json say. */
export async function readmeWorkspace(fixture: Parameters<typeof TempWorkspace.copy>[0] = "deno") {
  const ws = await TempWorkspace.copy(fixture);
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_rg_" }));
  await Deno.chmod(runtime, 0o700);
  // `lspgate` as the README installs it, into a folder of its own (DENO_INSTALL_ROOT: the user's
  // ~/.deno stays untouched); the shell expands this runtime folder into its grant as it installs.
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_rg_bin_" }));
  const path = `${join(home, "bin")}:${dirname(Deno.execPath())}:${Deno.env.get("PATH")}`;
  // The suite turns the daemon off for other tests; as a user runs it, it is on.
  const env = {
    XDG_RUNTIME_DIR: runtime,
    LSPGATE_NO_DAEMON: "0",
    NO_COLOR: "1",
    DENO_INSTALL_ROOT: home,
    PATH: path,
  };
  const spawn = (
    args: string[],
    stdin?: string,
    cwd = REPO_ROOT,
    more: Record<string, string> = {},
  ): Promise<RunOutput> =>
    runToEnd(args[0], args.slice(1), { cwd, env: { ...env, ...more }, stdin });
  const installed = await spawn(["bash", "-c", await readmeInstall()], undefined, home);
  assert.equal(installed.code, 0, installed.stderr);
  /** One of the README's hook commands, run by sh with Claude Code's environment. */
  const hook = async (
    event: "SessionStart" | "PostToolUse" | "Stop",
    payload: unknown,
    extra = "",
    more: Record<string, string> = {},
  ) =>
    await spawn(
      ["sh", "-c", `export CLAUDE_PROJECT_DIR='${ws.root}'; ${await readmeHook(event)}${extra}`],
      JSON.stringify(payload),
      ws.root,
      more,
    );
  /** The installed `lspgate ARGS --root ROOT`, with `more` of the environment. */
  const lspgate = (args: string[], more: Record<string, string> = {}) =>
    spawn(["lspgate", ...args, "--root", ws.root], undefined, ws.root, more);
  /** `deno task start ARGS --root ROOT` (default: the workspace), deno.json's own task. */
  const task = (args: string[], stdin?: string, root = ws.root) =>
    spawn([Deno.execPath(), "task", "start", ...args, "--root", root], stdin);
  /** `deno task start:mutations ARGS --root ROOT`: the README's grant for applying edits. */
  const mutations = (args: string[], stdin?: string) =>
    spawn([Deno.execPath(), "task", "start:mutations", ...args, "--root", ws.root], stdin);
  const status = async () => {
    const out = await task(["daemon", "status"]);
    return JSON.parse(out.stdout) as {
      running: boolean;
      pid?: number;
      requests?: number;
      servers: { server: string; state: string; pid?: number }[];
    };
  };
  const cleanup = async () => {
    await task(["daemon", "stop"]);
    await ws.remove();
    await Deno.remove(runtime, { recursive: true });
    await Deno.remove(home, { recursive: true });
  };
  return { ws, runtime, env, hook, lspgate, task, mutations, status, cleanup };
}

export const post = (session: string, file: string, original?: string) => ({
  session_id: session,
  hook_event_name: "PostToolUse",
  tool_name: "Edit",
  tool_input: { file_path: file },
  ...(original === undefined ? {} : { tool_response: { filePath: file, originalFile: original } }),
});

/** Nothing in a run's stderr says the daemon was not used or a grant was missing. */
export function assertServedByDaemon(out: RunOutput): void {
  // `deno task` echoes the task's command line first.
  const said = out.stderr.split("\n").filter((l) => !l.startsWith("Task ")).join("\n");
  assert.doesNotMatch(said, /PERMISSION_DENIED|could not be used|in-process|--allow-/);
}

export type Answer = {
  id: number;
  ok: boolean;
  content?: { text: string }[];
  error?: { code: string; message: string; data?: { path?: string } };
};

/** The JSON-lines answers of a run, by id. */
export function answers(stdout: string): Map<number, Answer> {
  const all = stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Answer);
  return new Map(all.map((a) => [a.id, a]));
}

export function readLines(stream: ReadableStream<Uint8Array>): AsyncIterator<string> {
  return streamLines(stream)[Symbol.asyncIterator]();
}
