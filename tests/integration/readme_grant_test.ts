// The hook, `call` and `--daemon` clients run exactly as the README and deno.json give them — the
// README's Claude Code hook commands through `sh -c` (as Claude Code runs them), `deno task start`
// itself — never with -A: under that grant (read, env, run, write on the runtime folder, net for
// the daemon's socket) they reach the warm daemon, the hook reports what an agent must hear, and a
// client whose daemon went away recovers. Real deno lsp on the deno fixture. What lspgate does with
// a symlink or another user's file planted in its runtime folder is runtime_folder_links_test.ts's.
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/program.ts";
import { until } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";
import { assertServedByDaemon, post, readLines, readmeWorkspace } from "../helpers/readme_grant.ts";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

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
