// The hook, `call` and `--daemon` clients run exactly as the README and deno.json give them — the
// README's Claude Code hook commands through `sh -c` (as Claude Code runs them), `deno task start`
// itself — never with -A: under that grant (read, env, run, write on the runtime folder, net for
// the daemon's socket) they reach the warm daemon, the hook reports what an agent must hear, and a
// client whose daemon went away recovers. Real deno lsp on the deno fixture.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "../helpers/program.ts";
import { type RunOutput, runToEnd, until } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";
import { turnStateName } from "../../src/frontends/turn_state.ts";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

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
async function readmeWorkspace() {
  const ws = await TempWorkspace.copy("deno");
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
  const spawn = (args: string[], stdin?: string, cwd = REPO_ROOT): Promise<RunOutput> =>
    runToEnd(args[0], args.slice(1), { cwd, env, stdin });
  const installed = await spawn(["bash", "-c", await readmeInstall()], undefined, home);
  assert.equal(installed.code, 0, installed.stderr);
  /** One of the README's hook commands, run by sh with Claude Code's environment. */
  const hook = async (
    event: "SessionStart" | "PostToolUse" | "Stop",
    payload: unknown,
    extra = "",
  ) =>
    await spawn(
      ["sh", "-c", `export CLAUDE_PROJECT_DIR='${ws.root}'; ${await readmeHook(event)}${extra}`],
      JSON.stringify(payload),
      ws.root,
    );
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
  return { ws, runtime, env, hook, task, mutations, status, cleanup };
}

const post = (session: string, file: string, original?: string) => ({
  session_id: session,
  hook_event_name: "PostToolUse",
  tool_name: "Edit",
  tool_input: { file_path: file },
  ...(original === undefined ? {} : { tool_response: { filePath: file, originalFile: original } }),
});

/** Nothing in a run's stderr says the daemon was not used or a grant was missing. */
function assertServedByDaemon(out: RunOutput): void {
  // `deno task` echoes the task's command line first.
  const said = out.stderr.split("\n").filter((l) => !l.startsWith("Task ")).join("\n");
  assert.doesNotMatch(said, /PERMISSION_DENIED|could not be used|in-process|--allow-/);
}

Deno.test("the README's Claude Code hooks under their own grant: SessionStart warms the servers, PostToolUse of a broken file exits 2 warm within its deadline with the error on stderr, Stop reports it", async () => {
  const rg = await readmeWorkspace();
  try {
    const session = `s-${crypto.randomUUID()}`;
    const start = await rg.hook("SessionStart", {
      session_id: session,
      hook_event_name: "SessionStart",
      source: "startup",
    });
    assert.deepEqual(start, { code: 0, stdout: "", stderr: "" });
    await until(
      async () => (await rg.status()).servers.some((s) => s.state === "running"),
      "the session's start has the workspace's server running in the daemon",
    );
    const file = join(rg.ws.root, "src/greet.ts");
    // The agent reads the file before it edits it (Claude Code's Edit needs a Read): the same
    // PostToolUse command opens it in its server, and says nothing.
    const read = await rg.hook("PostToolUse", {
      session_id: session,
      hook_event_name: "PostToolUse",
      tool_name: "Read",
      tool_input: { file_path: file },
    });
    assert.deepEqual(read, { code: 0, stdout: "", stderr: "" });
    // An agent takes seconds between reading and editing; the server's first analysis of the
    // project (seconds on a loaded machine) is done meanwhile. This call waits for it.
    assert.equal((await rg.task(["call", "diagnostics", "file=src/greet.ts"])).code, 0);
    const original = await rg.ws.read("src/greet.ts");
    await rg.ws.write("src/greet.ts", `${original}export const wrong: number = "x";\n`);
    const line = (await rg.ws.locate("src/greet.ts", "const wrong")).line;
    // The warm hook's deadline (1.5 s) holds: a hook that gave up would exit 0.
    const out = await rg.hook("PostToolUse", post(session, file, original));
    assertServedByDaemon(out);
    assert.equal(out.code, 2, out.stderr);
    assert.match(
      out.stderr,
      new RegExp(`^src/greet\\.ts:${line}:\\d+ error \\[deno-ts 2322\\]`, "m"),
    );
    assert.equal(out.stdout, "");

    const stop = await rg.hook("Stop", { session_id: session, hook_event_name: "Stop" });
    assert.equal(stop.code, 2, stop.stderr);
    assert.match(stop.stderr, /^lspgate: 1 error, 0 warnings in 1 edited file:\n/);
    assert.match(stop.stderr, new RegExp(`^src/greet\\.ts:${line}:`, "m"));
    const daemon = await rg.status();
    assert.ok((daemon.requests ?? 0) >= 3, JSON.stringify(daemon));
  } finally {
    await rg.cleanup();
  }
});

Deno.test("a PostToolUse hook that gives up at its deadline still has its file in the Stop report", async () => {
  const rg = await readmeWorkspace();
  const config = join(rg.runtime, "deadline.json");
  try {
    // A deadline no cold server meets: the hook gives up.
    await Deno.writeTextFile(config, JSON.stringify({ hookDeadlineMs: 100 }));
    const session = `s-${crypto.randomUUID()}`;
    const file = join(rg.ws.root, "src/greet.ts");
    await rg.ws.write("src/greet.ts", 'export const wrong: number = "x";\n');
    const out = await rg.hook("PostToolUse", post(session, file), ` --config '${config}'`);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /^lspgate hook: gave up after 0\.1 s/);
    // A Stop with the same 0.1 s: it either reports the file or, giving up, forgets nothing —
    // the next end of the turn, with a deadline that is only a hang guard, reports it then.
    const hasty = await rg.hook(
      "Stop",
      { session_id: session, hook_event_name: "Stop" },
      ` --config '${config}'`,
    );
    if (hasty.code === 2) {
      assert.match(
        hasty.stderr,
        /^lspgate: 1 error, 0 warnings in 1 edited file:\nsrc\/greet\.ts:1:/,
      );
      return;
    }
    assert.match(hasty.stderr, /^lspgate hook: gave up after 0\.1 s/);
    const patient = join(rg.runtime, "patient.json");
    await Deno.writeTextFile(patient, JSON.stringify({ hookDeadlineMs: 60_000 }));
    const stop = await rg.hook(
      "Stop",
      { session_id: session, hook_event_name: "Stop" },
      ` --config '${patient}'`,
    );
    assert.equal(stop.code, 2, stop.stderr);
    assert.match(stop.stderr, /^lspgate: 1 error, 0 warnings in 1 edited file:\nsrc\/greet\.ts:1:/);
  } finally {
    await rg.cleanup();
  }
});

Deno.test("an importer's old error is not reported after an edit, nor counted as an edited file, nor in the Stop report", async () => {
  const rg = await readmeWorkspace();
  try {
    // report.ts (it imports greet.ts) has an error from before the turn.
    const report = await rg.ws.read("src/report.ts");
    await rg.ws.write("src/report.ts", `${report}export const old: number = "old";\n`);
    // Not about speed: a deadline that is only a hang guard, for every hook of the test.
    const config = join(rg.runtime, "patient.json");
    await Deno.writeTextFile(config, JSON.stringify({ hookDeadlineMs: 60_000 }));
    const patient = ` --config '${config}'`;
    const session = `s-${crypto.randomUUID()}`;
    await rg.hook(
      "SessionStart",
      { session_id: session, hook_event_name: "SessionStart" },
      patient,
    );
    const file = join(rg.ws.root, "src/greet.ts");
    const original = await rg.ws.read("src/greet.ts");
    await rg.ws.write("src/greet.ts", `${original}export const wrong: number = "x";\n`);
    // With the text from before the edit, and (another session) without it.
    for (const [id, before] of [[session, original], [`s-${crypto.randomUUID()}`, undefined]]) {
      const out = await rg.hook("PostToolUse", post(id!, file, before), patient);
      assertServedByDaemon(out);
      assert.equal(out.code, 2, out.stderr);
      assert.match(out.stderr, /^lspgate: 1 error, 0 warnings in 1 edited file:\nsrc\/greet\.ts:/);
      assert.doesNotMatch(out.stderr, /src\/report\.ts/);
    }
    const stop = await rg.hook("Stop", { session_id: session, hook_event_name: "Stop" }, patient);
    assert.equal(stop.code, 2, stop.stderr);
    assert.match(stop.stderr, /^lspgate: 1 error, 0 warnings in 1 edited file:\n/);
    assert.doesNotMatch(stop.stderr, /src\/report\.ts/);
  } finally {
    await rg.cleanup();
  }
});

Deno.test("JSON lines under deno task start, no daemon: change tracking is exact (the runtime folder is granted)", async () => {
  const rg = await readmeWorkspace();
  try {
    const out = await rg.task([], '{"id": 1, "action": "status"}\n');
    assert.equal(out.code, 0, out.stderr);
    const answer = JSON.parse(out.stdout.trim().split("\n")[0]);
    assert.equal(answer.details.changeTracking, "exact", out.stdout);
  } finally {
    await rg.cleanup();
  }
});

Deno.test("`deno task start call` twice: the daemon is started and used (no fallback), the second answer from the same warm server", async () => {
  const rg = await readmeWorkspace();
  try {
    const pids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const out = await rg.task(["call", "status", "--json"]);
      assertServedByDaemon(out);
      assert.equal(out.code, 0, out.stderr);
      const answer = JSON.parse(out.stdout) as {
        details: { servers: { pid?: number }[]; changeTracking: string };
      };
      // The daemon may write its private folder: every change before a query is waited for.
      assert.equal(answer.details.changeTracking, "exact");
      pids.push(...answer.details.servers.map((s) => s.pid).filter((p): p is number => !!p));
      if (i === 0) {
        const warmUp = await rg.task(["call", "diagnostics", "file=src/main.ts"]);
        assert.equal(warmUp.code, 0, warmUp.stderr);
        assertServedByDaemon(warmUp);
      }
    }
    // The first status came before any server; the second names the one the diagnostics started.
    assert.equal(pids.length, 1, JSON.stringify(pids));
    const daemon = await rg.status();
    assert.equal(daemon.running, true);
    assert.equal(daemon.requests, 3);
    assert.equal(daemon.servers.find((s) => s.pid)?.pid, pids[0]);
  } finally {
    await rg.cleanup();
  }
});

Deno.test("one daemon serves two workspaces, each connection seeing only its own; stopping one leaves the other served", async () => {
  const rg = await readmeWorkspace();
  const other = await TempWorkspace.copy("deno");
  try {
    const statusOf = async (root: string) =>
      JSON.parse((await rg.task(["daemon", "status"], undefined, root)).stdout) as {
        pid: number;
        root: string;
        servers: { server: string; pid?: number }[];
      };
    for (const root of [rg.ws.root, other.root]) {
      const out = await rg.task(["call", "diagnostics", "file=src/main.ts"], undefined, root);
      assertServedByDaemon(out);
      assert.equal(out.code, 0, out.stderr);
    }
    const [a, b] = [await statusOf(rg.ws.root), await statusOf(other.root)];
    assert.equal(a.pid, b.pid, "one daemon");
    assert.deepEqual(a.servers.map((s) => s.server), [`deno@${rg.ws.root}`]);
    assert.deepEqual(b.servers.map((s) => s.server), [`deno@${other.root}`]);
    assert.ok(!JSON.stringify(a).includes(other.root), JSON.stringify(a));
    // Stopping the first workspace's session: the other is served on, by the same server.
    assert.equal((await rg.task(["daemon", "stop"])).code, 0);
    const after = await statusOf(other.root);
    assert.equal(after.pid, b.pid);
    assert.equal(after.servers[0]?.pid, b.servers[0]?.pid);
    assert.deepEqual((await statusOf(rg.ws.root)).servers, []);
  } finally {
    await rg.task(["daemon", "stop"], undefined, other.root);
    await other.remove();
    await rg.cleanup();
  }
});

Deno.test("a --daemon JSON-lines client under the start task's grant recovers when its daemon is stopped or killed: at most one SERVER_EXITED, then answered right", async () => {
  const rg = await readmeWorkspace();
  // deno.json's start task, as `deno task` runs it (its variables expanded by the shell), exec'd
  // so that the client is this very process.
  const { tasks } = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  const child = new Deno.Command("sh", {
    args: ["-c", `exec ${tasks.start} --daemon --root '${rg.ws.root}'`],
    cwd: REPO_ROOT,
    env: rg.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = readLines(child.stdout);
  const stderr = new Response(child.stderr).text();
  let id = 0;
  const ask = async () => {
    const at = await rg.ws.locate("src/main.ts", "greet(名前)");
    const request = { id: ++id, action: "definition", file: "src/main.ts", line: at.line };
    await writer.write(
      new TextEncoder().encode(JSON.stringify({ ...request, symbol: "greet" }) + "\n"),
    );
    const next = await lines.next();
    if (next.done) assert.fail(`the client ended: ${await stderr}`);
    return JSON.parse(next.value) as {
      id: number;
      ok: boolean;
      details?: { locations: { file: string; line: number }[] };
      error?: { code: string };
    };
  };
  /** Asks until answered (at most one SERVER_EXITED first); the answer must be right. */
  const answeredRight = async () => {
    let answer = await ask();
    let exited = 0;
    if (!answer.ok && answer.error?.code === "SERVER_EXITED") {
      exited++;
      answer = await ask();
    }
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.deepEqual(
      answer.details!.locations.map((l) => [l.file, l.line]),
      [["src/greet.ts", 2]],
      JSON.stringify(answer),
    );
    return exited;
  };
  try {
    assert.equal(await answeredRight(), 0);
    const first = await rg.status();
    assert.ok(first.pid, JSON.stringify(first));

    // `daemon stop`, as a user runs it: the next request finds or starts a new daemon.
    assert.equal((await rg.task(["daemon", "stop"])).code, 0);
    assert.ok(await answeredRight() <= 1);
    const second = await rg.status();
    assert.ok(second.pid && second.pid !== first.pid, JSON.stringify([first, second]));

    // kill -9: the same.
    Deno.kill(second.pid!, "SIGKILL");
    assert.ok(await answeredRight() <= 1);
    const third = await rg.status();
    assert.ok(third.pid && third.pid !== second.pid, JSON.stringify([second, third]));
    await writer.close();
    assert.equal((await child.status).code, 0, await stderr);
    assertServedByDaemon({ code: 0, stdout: "", stderr: await stderr });
  } finally {
    await writer.close().catch(() => {});
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await child.status;
    await stderr;
    await rg.cleanup();
  }
});

Deno.test("an MCP --daemon client under the start task's grant recovers when its daemon is stopped or killed: at most one SERVER_EXITED, then answered right", async () => {
  const rg = await readmeWorkspace();
  const { tasks } = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  const transport = new StdioClientTransport({
    command: "sh",
    args: ["-c", `exec ${tasks.start} mcp --daemon --root '${rg.ws.root}'`],
    cwd: REPO_ROOT,
    env: { ...Deno.env.toObject(), ...rg.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "lspgate-recovery-test", version: "0" });
  await client.connect(transport);
  const definition = async () => {
    const at = await rg.ws.locate("src/main.ts", "greet(名前)");
    return await client.callTool({
      name: "lsp",
      arguments: { action: "definition", file: "src/main.ts", line: at.line, symbol: "greet" },
    }) as { isError?: boolean; content: { text: string }[]; structuredContent?: unknown };
  };
  const answeredRight = async () => {
    let result = await definition();
    let exited = 0;
    if (result.isError && /^SERVER_EXITED/.test(result.content[0].text)) {
      exited++;
      result = await definition();
    }
    assert.notEqual(result.isError, true, JSON.stringify(result) + stderr);
    const { locations } = result.structuredContent as {
      locations: { file: string; line: number }[];
    };
    assert.deepEqual(locations.map((l) => [l.file, l.line]), [["src/greet.ts", 2]]);
    return exited;
  };
  try {
    assert.equal(await answeredRight(), 0);
    const first = await rg.status();
    assert.equal((await rg.task(["daemon", "stop"])).code, 0);
    assert.ok(await answeredRight() <= 1);
    const second = await rg.status();
    assert.ok(second.pid && second.pid !== first.pid, JSON.stringify([first, second]));
    Deno.kill(second.pid!, "SIGKILL");
    assert.ok(await answeredRight() <= 1);
    const third = await rg.status();
    assert.ok(third.pid && third.pid !== second.pid, JSON.stringify([second, third]));
    assertServedByDaemon({ code: 0, stdout: "", stderr });
  } finally {
    await client.close();
    await rg.cleanup();
  }
});

Deno.test("a workspace folder deleted and made again is served afresh by the daemon: the new files' answers, not the old ones'", async () => {
  const rg = await readmeWorkspace();
  const backup = await Deno.makeTempDir({ prefix: "lspgate_rg_backup_" });
  const definition = async () => {
    const at = await rg.ws.locate("src/main.ts", "greet(名前)");
    const out = await rg.task([
      "call",
      "definition",
      "file=src/main.ts",
      `line=${at.line}`,
      "symbol=greet",
    ]);
    assertServedByDaemon(out);
    assert.equal(out.code, 0, out.stderr);
    return out.stdout;
  };
  try {
    assert.match(await definition(), /^src\/greet\.ts:2:17$/m);
    const before = await rg.status();
    const copy = (from: string, to: string) =>
      new Deno.Command("cp", { args: ["-a", `${from}/.`, to] }).output();
    await copy(rg.ws.root, backup);
    await Deno.remove(rg.ws.root, { recursive: true });
    await Deno.mkdir(rg.ws.root);
    await copy(backup, rg.ws.root);
    // The new folder's greet.ts is not the old one's: greet moved two lines down.
    await rg.ws.write("src/greet.ts", `// Made again.\n\n${await rg.ws.read("src/greet.ts")}`);
    assert.match(await definition(), /^src\/greet\.ts:4:17$/m);
    // And a file broken in the new folder is reported (its watcher watches the new folder).
    await rg.ws.write("src/broken.ts", 'export const n: number = "x";\n');
    const broken = await rg.task(["call", "diagnostics", "file=src/broken.ts"]);
    assert.match(broken.stdout, /^ {2}1:\d+ error deno-ts 2322: /m);
    assert.equal((await rg.status()).pid, before.pid, "the same daemon served throughout");
  } finally {
    await Deno.remove(backup, { recursive: true });
    await rg.cleanup();
  }
});

Deno.test("a symlink planted at each runtime-folder file is never followed: its target untouched, the error names it", async () => {
  const rg = await readmeWorkspace();
  const folder = join(rg.runtime, "lspgate");
  const victim = join(rg.runtime, "victim.txt");
  try {
    await Deno.mkdir(folder, { mode: 0o700 });
    await Deno.writeTextFile(victim, "keep\n");
    const session = `s-${crypto.randomUUID()}`;
    const turn = join(folder, await turnStateName(session, await Deno.realPath(rg.ws.root)));
    const file = join(rg.ws.root, "src/greet.ts");
    // The socket first: the hooks after it start a daemon, whose socket is then there.
    for (const planted of [join(folder, "daemon.sock"), turn, `${turn}.lock`]) {
      await Deno.symlink(victim, planted);
      const name = planted.slice(folder.length + 1).replace(/\./g, "\\.");
      if (planted.endsWith(".sock")) {
        // The daemon's socket: the call is answered in-process, saying why.
        const out = await rg.task(["call", "status"]);
        assert.equal(out.code, 0, out.stderr);
        assert.match(out.stderr, new RegExp(`PERMISSION_DENIED: .*${name} .*is a symlink`));
      } else {
        const out = await rg.hook("PostToolUse", post(session, file));
        assert.equal(out.code, 0, out.stderr);
        assert.match(
          out.stderr,
          new RegExp(`^lspgate hook: PERMISSION_DENIED: .*${name} .*symlink`),
        );
      }
      assert.equal(await Deno.readTextFile(victim), "keep\n");
      assert.ok((await Deno.lstat(planted)).isSymlink);
      await Deno.remove(planted);
    }
  } finally {
    await rg.cleanup();
  }
});

type Answer = {
  id: number;
  ok: boolean;
  content?: { text: string }[];
  error?: { code: string; message: string; data?: { path?: string } };
};

/** The JSON-lines answers of a run, by id. */
function answers(stdout: string): Map<number, Answer> {
  const all = stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Answer);
  return new Map(all.map((a) => [a.id, a]));
}

/** Every path under `dir`, relative and sorted, with each file's text. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = join(at, entry.name);
      const text = entry.isFile ? `: ${await Deno.readTextFile(path)}` : "";
      out.push(path.slice(dir.length + 1) + text);
      if (entry.isDirectory) await walk(path);
    }
  };
  await walk(dir);
  return out.sort();
}

Deno.test("under --sandbox landlock, a symlink, another user's folder or an open one at the runtime folder or its sandbox folder: PERMISSION_DENIED naming it, no server started, nothing made or swept in the target, lspgate keeps serving", async () => {
  const rg = await readmeWorkspace();
  const folder = join(rg.runtime, "lspgate");
  const sandbox = join(folder, "sandbox");
  const victim = join(rg.runtime, "victim");
  const requests = [
    { id: 1, action: "hover", file: "src/greet.ts", line: 2, symbol: "greet", timeout: 60_000 },
    { id: 2, action: "status" },
  ].map((r) => JSON.stringify(r) + "\n").join("");
  try {
    // The target holds a dead lspgate's scratch folder, which the launcher's sweep would remove.
    const gone = new Deno.Command("true").spawn();
    await gone.status;
    await Deno.mkdir(join(victim, `${gone.pid}-0badf00d`, "home"), { recursive: true });
    const namespace = await Deno.readLink("/proc/self/ns/pid");
    await Deno.writeTextFile(join(victim, `${gone.pid}-0badf00d`, "owner"), namespace);
    const before = await tree(victim);
    const cases: { name: string; path: string; plant: () => Promise<void>; why: RegExp }[] = [
      {
        name: "sandbox a symlink",
        path: sandbox,
        plant: () => Deno.symlink(victim, sandbox),
        why: /^\S+ in lspgate's runtime folder is a symlink: lspgate does not use it/,
      },
      {
        name: "the runtime folder a symlink",
        path: folder,
        plant: async () => {
          await Deno.remove(folder, { recursive: true });
          await Deno.symlink(victim, folder);
        },
        why: /^The runtime folder \S+ is not a private folder of this user .*: it is a symlink;/,
      },
      {
        name: "sandbox open to others",
        path: sandbox,
        plant: async () => {
          await Deno.mkdir(sandbox, { mode: 0o700 });
          await Deno.chmod(sandbox, 0o755);
        },
        why: /^\S+ in lspgate's runtime folder is not private to this user \(mode 0755\)/,
      },
      {
        name: "sandbox another user's",
        path: sandbox,
        plant: async () => {
          await Deno.mkdir(sandbox, { mode: 0o700 });
          await Deno.chown(sandbox, 65534, 65534);
        },
        why: /^\S+ in lspgate's runtime folder is not private to this user \(owned by uid 65534\)/,
      },
    ];
    for (const c of cases) {
      await Deno.remove(folder, { recursive: true }).catch(() => {});
      await Deno.mkdir(folder, { mode: 0o700 });
      await c.plant();
      const out = await rg.task(["--sandbox", "landlock"], requests);
      assert.equal(out.code, 0, out.stderr);
      const got = answers(out.stdout);
      const error = got.get(1)?.error;
      assert.equal(error?.code, "PERMISSION_DENIED", `${c.name}: ${JSON.stringify(got.get(1))}`);
      assert.match(error.message, c.why);
      assert.ok(error.message.includes(`${c.path} `), error.message);
      assert.equal(error.data?.path, c.path);
      assert.equal(got.get(2)?.ok, true, `${c.name}: status unanswered: ${out.stdout}`);
      assert.deepEqual(await tree(victim), before, `${c.name}: the target was changed`);
    }
    // Control: the runtime folder lspgate's own again, the same hover is answered under Landlock.
    await Deno.remove(folder, { recursive: true });
    const out = await rg.task(["--sandbox", "landlock"], requests);
    const hover = answers(out.stdout).get(1);
    assert.equal(hover?.ok, true, JSON.stringify(hover));
    assert.match(hover.content![0].text, /function greet\(name: string\): string/);
    assert.deepEqual(await tree(victim), before);
  } finally {
    await rg.cleanup();
  }
});

Deno.test("a symlink planted at an apply's journal or its lock file, or another user's lock file: the rename through deno lsp answers PERMISSION_DENIED naming it, the link's target and every workspace file byte-identical", async () => {
  const rg = await readmeWorkspace();
  const folder = join(rg.runtime, "lspgate");
  const victim = join(rg.runtime, "victim.txt");
  const rename = JSON.stringify({
    id: 1,
    action: "rename",
    file: "src/greet.ts",
    line: 2,
    symbol: "greet",
    new_name: "welcome",
    apply: true,
    timeout: 60_000,
  }) + "\n";
  try {
    await Deno.mkdir(folder, { mode: 0o700 });
    await Deno.writeTextFile(victim, "keep\n");
    const root = new TextEncoder().encode(await Deno.realPath(rg.ws.root));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", root));
    const hex = [...digest.slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
    const before = await tree(rg.ws.root);
    for (const name of [`apply-${hex}.json`, `apply-${hex}.lock`]) {
      const planted = join(folder, name);
      await Deno.remove(planted).catch(() => {});
      await Deno.symlink(victim, planted);
      const out = await rg.mutations([], rename);
      assert.equal(out.code, 0, out.stderr);
      const answer = answers(out.stdout).get(1);
      assert.equal(answer?.error?.code, "PERMISSION_DENIED", `${name}: ${JSON.stringify(answer)}`);
      assert.ok(answer.error.message.startsWith(`${planted} is not a file lspgate wrote (a link`));
      assert.equal(answer.error.data?.path, planted);
      assert.equal(await Deno.readTextFile(victim), "keep\n");
      assert.ok((await Deno.lstat(planted)).isSymlink);
      assert.deepEqual(await tree(rg.ws.root), before, `${name}: a workspace file changed`);
      await Deno.remove(planted);
    }
    // Another user's lock file (as root may open it): refused as well, though the grant gives
    // lspgate no user id (no --allow-sys, and /proc/self/status needs --allow-all).
    const lock = join(folder, `apply-${hex}.lock`);
    await Deno.writeTextFile(lock, "", { mode: 0o600 });
    await Deno.chown(lock, 65534, 65534);
    const refused = answers((await rg.mutations([], rename)).stdout).get(1);
    assert.equal(refused?.error?.code, "PERMISSION_DENIED", JSON.stringify(refused));
    assert.equal(refused.error.data?.path, lock);
    assert.deepEqual(
      await tree(rg.ws.root),
      before,
      "another user's lock: a workspace file changed",
    );
    await Deno.remove(lock);
    // Control: without them the same apply renames.
    const out = await rg.mutations([], rename);
    assert.equal(answers(out.stdout).get(1)?.ok, true, out.stdout);
    assert.match(await Deno.readTextFile(join(rg.ws.root, "src/greet.ts")), /function welcome\(/);
  } finally {
    await rg.cleanup();
  }
});

async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let cut: number;
    while ((cut = buffer.indexOf("\n")) !== -1) {
      yield buffer.slice(0, cut);
      buffer = buffer.slice(cut + 1);
    }
  }
}

function readLines(stream: ReadableStream<Uint8Array>): AsyncIterator<string> {
  return lines(stream)[Symbol.asyncIterator]();
}
