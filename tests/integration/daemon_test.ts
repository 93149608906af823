// Warm by default: `call` and `hook` share the workspace's daemon, each connection held to its own
// role; the hook reports an edit that breaks an importer, and the end of a turn reports every file
// the turn touched. Real lspgate processes over deno lsp.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonConnection } from "../../src/daemon/client.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const MOD = join(import.meta.dirname!, "..", "..", "mod.ts");

/** A workspace copy and a private runtime folder, so this test's daemon is its own. */
async function setup() {
  const ws = await TempWorkspace.copy("deno");
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_rt_" }));
  await Deno.chmod(runtime, 0o700);
  const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0" };
  const run = async (args: string[], stdin?: string) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MOD, ...args, "--root", ws.root],
      env,
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
  };
  const cleanup = async () => {
    await run(["daemon", "stop"]);
    await ws.remove();
    await Deno.remove(runtime, { recursive: true });
  };
  return { ws, runtime, run, cleanup };
}

function serverPid(statusJson: string): number | undefined {
  const status = JSON.parse(statusJson) as { details: { servers: { pid?: number }[] } };
  return status.details.servers.find((s) => s.pid !== undefined)?.pid;
}

Deno.test("two calls in a row share one warm server through the daemon (same pid)", async () => {
  const { ws, run, cleanup } = await setup();
  try {
    const at = await ws.locate("src/main.ts", "greet(名前)");
    const first = await run([
      "call",
      "definition",
      "file=src/main.ts",
      `line=${at.line}`,
      "symbol=greet",
    ]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /src\/greet\.ts:2:17/);
    const a = await run(["call", "status", "--json"]);
    const b = await run(["call", "status", "--json"]);
    const pid = serverPid(a.stdout);
    assert.ok(pid, a.stdout);
    assert.equal(serverPid(b.stdout), pid);
    const daemon = JSON.parse((await run(["daemon", "status"])).stdout);
    assert.equal(daemon.running, true);
    assert.equal(daemon.requests, 3);
    // --no-daemon starts its own server, which is gone when the call ends.
    const own = await run(["call", "status", "--json", "--no-daemon"]);
    assert.equal(serverPid(own.stdout), undefined);
  } finally {
    await cleanup();
  }
});

Deno.test("the warm hook reports a type error in the edited file and one it caused in an importer; its own failures exit 0", async () => {
  const { ws, run, cleanup } = await setup();
  try {
    // Warm the daemon and its server.
    assert.equal((await run(["call", "diagnostics", "file=src/main.ts"])).code, 0);
    const session = `s-${crypto.randomUUID()}`;
    // The edit: greet now takes a number, and returns one: main.ts's call breaks.
    await ws.write(
      "src/greet.ts",
      (await ws.read("src/greet.ts")).replace(
        "export function greet(name: string): string {\n  return `Hello, ${name}!`;",
        "export function greet(name: number): string {\n  const wrong: number = 'x';\n  return `Hello, ${name}!`;",
      ),
    );
    const payload = (file: string) =>
      JSON.stringify({
        session_id: session,
        hook_event_name: "PostToolUse",
        tool_name: "Edit",
        tool_input: { file_path: join(ws.root, file) },
      });
    const hook = await run(["hook"], payload("src/greet.ts"));
    assert.equal(hook.code, 2, hook.stderr);
    const wrongLine = (await ws.locate("src/greet.ts", "const wrong")).line;
    assert.match(hook.stderr, new RegExp(`src/greet\\.ts:${wrongLine}:\\d+ error`));
    const callLine = (await ws.locate("src/main.ts", "greet(名前)")).line;
    assert.match(hook.stderr, new RegExp(`src/main\\.ts:${callLine}:\\d+ error`));

    // The end of the turn reports every file the turn touched, then forgets them.
    const stop = await run(
      ["hook"],
      JSON.stringify({ session_id: session, hook_event_name: "Stop" }),
    );
    assert.equal(stop.code, 2, stop.stderr);
    assert.match(stop.stderr, /src\/greet\.ts:\d+:\d+ error/);
    const again = await run(["hook", "--event", "stop"], JSON.stringify({ session_id: session }));
    assert.deepEqual([again.code, again.stdout, again.stderr], [0, "", ""]);

    // lspgate's own failures: one line, exit 0.
    for (
      const [stdin, args] of [
        ["{not json", []],
        [payload("notes.unknown-type"), []],
      ] as const
    ) {
      if (stdin.includes("unknown-type")) await ws.write("notes.unknown-type", "x\n");
      const failed = await run(["hook", ...args], stdin);
      assert.equal(failed.code, 0, failed.stderr);
      assert.equal(failed.stdout, "");
      assert.ok(failed.stderr.trim().split("\n").length <= 1, failed.stderr);
    }
  } finally {
    await cleanup();
  }
});

Deno.test("a killed server under the daemon: the hook exits 0 quietly or reports, and the next call restarts it", async () => {
  const { run, cleanup } = await setup();
  try {
    assert.equal((await run(["call", "hover", "file=src/main.ts", "line=1", "column=10"])).code, 0);
    const pid = serverPid((await run(["call", "status", "--json"])).stdout)!;
    Deno.kill(pid, "SIGKILL");
    const hook = await run(["hook", "src/main.ts"]);
    assert.ok(hook.code === 0 || hook.code === 2, `${hook.code}: ${hook.stderr}`);
    assert.ok(hook.stderr.trim().split("\n").length <= 1 || hook.code === 2, hook.stderr);
    const next = await run(["call", "hover", "file=src/main.ts", "line=1", "column=10"]);
    assert.equal(next.code, 0, next.stderr);
    assert.notEqual(serverPid((await run(["call", "status", "--json"])).stdout), pid);
  } finally {
    await cleanup();
  }
});

Deno.test("one daemon, two roles: the sub-agent's apply is refused while the main connection's is written", async () => {
  const { ws, runtime, run, cleanup } = await setup();
  try {
    // Started by a process that may write: the daemon can write for main connections.
    assert.equal((await run(["daemon", "start", "--allow-mutations"])).code, 0);
    const folder = join(runtime, "lspgate");
    assert.equal(((await Deno.stat(folder)).mode ?? 0) & 0o777, 0o700);
    const sockets = [...Deno.readDirSync(folder)].filter((e) => e.name.endsWith(".sock"));
    assert.equal(sockets.length, 1);
    const socket = join(folder, sockets[0].name);
    assert.equal(((await Deno.stat(socket)).mode ?? 0) & 0o777, 0o600);

    const at = await ws.locate("src/greet.ts", "greet(name: string)");
    const rename = {
      action: "rename",
      file: "src/greet.ts",
      line: at.line,
      column: at.column,
      new_name: "salute",
      apply: true,
    };
    const before = await ws.read("src/main.ts");
    const sub = await DaemonConnection.open(socket, { role: "subagent", allowMutations: true });
    assert.equal(sub.granted.allowMutations, false);
    const refused = await sub.request({ id: 1, ...rename });
    assert.equal((refused as { error?: { code: string } }).error?.code, "ACTION_NOT_ALLOWED");
    assert.equal(await ws.read("src/main.ts"), before);
    sub.close();

    const main = await DaemonConnection.open(socket, { role: "main", allowMutations: true });
    assert.equal(main.granted.allowMutations, true);
    const applied = await main.request({ id: 1, ...rename });
    assert.equal(applied.ok, true, JSON.stringify(applied));
    assert.match(await ws.read("src/main.ts"), /import \{ salute \} from "\.\/greet\.ts";/);
    main.close();
  } finally {
    await cleanup();
  }
});

Deno.test('JSON lines with --daemon and "progress": true: progress lines come before the answer', async () => {
  const { ws, run, cleanup } = await setup();
  try {
    const at = await ws.locate("src/main.ts", "greet(名前)");
    const request = { id: 7, action: "definition", file: "src/main.ts", ...at, progress: true };
    const out = await run(["--daemon"], JSON.stringify(request) + "\n");
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const answer = lines.at(-1);
    assert.equal(answer.id, 7);
    assert.equal(answer.ok, true);
    const progress = lines.slice(0, -1);
    assert.ok(progress.length >= 1, out.stdout);
    for (const line of progress) {
      assert.equal(line.id, 7);
      assert.ok(Array.isArray(line.progress.servers));
    }
    assert.ok(progress.some((l) => /deno/.test(l.progress.message)), out.stdout);
  } finally {
    await cleanup();
  }
});

Deno.test("a sub-agent run with exactly the flags `permissions --daemon` prints reaches the warm daemon, and writes nothing", async () => {
  const { ws, runtime, run, cleanup } = await setup();
  try {
    assert.equal((await run(["daemon", "start"])).code, 0);
    const printed = await run(["permissions", "--role", "subagent", "--daemon", "--json"]);
    const { command } = JSON.parse(printed.stdout) as { command: string[] };
    const write = command.find((a) => a.startsWith("--allow-write="));
    assert.equal(write, `--allow-write=${join(runtime, "lspgate")}`);
    assert.ok(command.some((a) => /^--allow-net=unix:.*\.sock$/.test(a)), command.join(" "));
    const [, ...args] = command;
    const child = new Deno.Command(Deno.execPath(), {
      args,
      env: { XDG_RUNTIME_DIR: runtime },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    const hover = { id: 1, action: "hover", file: "src/main.ts", line: 1, column: 10 };
    const rename = {
      id: 2,
      action: "rename",
      file: "src/greet.ts",
      line: 2,
      column: 17,
      new_name: "x",
      apply: true,
    };
    await writer.write(
      new TextEncoder().encode(JSON.stringify(hover) + "\n" + JSON.stringify(rename) + "\n"),
    );
    await writer.close();
    const out = await child.output();
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(new TextDecoder().decode(out.stderr).includes("serving in-process"), false);
    assert.equal(lines.find((l) => l.id === 1).ok, true);
    assert.equal(lines.find((l) => l.id === 2).error.code, "ACTION_NOT_ALLOWED");
    const daemon = JSON.parse((await run(["daemon", "status"])).stdout);
    assert.equal(daemon.requests, 2, "both went through the daemon");
    assert.match(await ws.read("src/greet.ts"), /export function greet\(/);
  } finally {
    await cleanup();
  }
});

Deno.test("the daemon writes only within both grants: not for a client without write on the root, not when it has none itself", async () => {
  const { ws, runtime, run, cleanup } = await setup();
  const folder = join(runtime, "lspgate");
  // A process that may write its socket folder but not the workspace.
  const restricted = async (args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-env",
        "--allow-run",
        "--allow-sys",
        "--allow-net",
        `--allow-write=${folder}`,
        MOD,
        ...args,
        "--root",
        ws.root,
      ],
      env: { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
  };
  try {
    await Deno.mkdir(folder, { mode: 0o700 });
    const at = await ws.locate("src/greet.ts", "greet(name: string)");
    const rename = [
      "call",
      "rename",
      "file=src/greet.ts",
      `line=${at.line}`,
      `column=${at.column}`,
      "new_name=salute",
      "apply=true",
      "--json",
      "--allow-mutations",
    ];
    const before = await ws.read("src/main.ts");

    // A writable daemon, and a client whose own grant cannot write the root.
    assert.equal((await run(["daemon", "start", "--allow-mutations"])).code, 0);
    const capped = await restricted(rename);
    assert.match(capped.stderr, /the daemon will not write for this process/);
    assert.equal(JSON.parse(capped.stdout).error.code, "ACTION_NOT_ALLOWED", capped.stdout);
    assert.equal(JSON.parse((await run(["daemon", "status"])).stdout).requests, 1);
    assert.equal(await ws.read("src/main.ts"), before);
    assert.equal((await run(["daemon", "stop"])).code, 0);

    // A daemon started by a process that cannot write the root writes for nobody, and says so.
    assert.equal((await restricted(["daemon", "start"])).code, 0);
    const status = JSON.parse((await run(["daemon", "status"])).stdout);
    assert.equal(status.writable, false);
    const sockets = [...Deno.readDirSync(folder)].filter((e) => e.name.endsWith(".sock"));
    const main = await DaemonConnection.open(join(folder, sockets[0].name), {
      role: "main",
      allowMutations: true,
    });
    assert.equal(main.granted.allowMutations, false);
    assert.match(String(main.granted.note), /writes for nobody/);
    const refused = await main.request({
      id: 1,
      action: "rename",
      file: "src/greet.ts",
      line: at.line,
      column: at.column,
      new_name: "salute",
      apply: true,
    });
    assert.equal((refused as { error?: { code: string } }).error?.code, "ACTION_NOT_ALLOWED");
    main.close();
    assert.equal(await ws.read("src/main.ts"), before);
  } finally {
    await cleanup();
  }
});
