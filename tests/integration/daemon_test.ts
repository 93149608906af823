// Warm by default: `call` and `hook` share the workspace's daemon, each connection held to its own
// role; the hook reports an edit that breaks an importer, and the end of a turn reports every file
// the turn touched. Real lspgate processes over deno lsp.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonConnection } from "../../src/daemon/client.ts";
import { TempWorkspace } from "../helpers/workspace.ts";
import {
  assertQuiet,
  configFile,
  daemonWorkspace as setup,
  FAKE_SERVER,
  MOD,
  runLspgate,
  runToEnd,
  until,
  workspaceHello,
} from "../helpers/daemon.ts";

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
    const original = await ws.read("src/greet.ts");
    await ws.write(
      "src/greet.ts",
      original.replace(
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
        // Claude Code's Edit answer: the file's text before the edit.
        tool_response: { filePath: join(ws.root, file), originalFile: original },
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

Deno.test("the warm hook on a file whose server is not installed exits 0 with one line, and the daemon serves on", async () => {
  // Two ways a server is missing: a server of the user's own whose command is not there (no
  // grammar either: not checked at all), and gopls configured to a command that is not there (Go
  // has a grammar: checked for syntax only). Sandboxed, as a daemon runs by default.
  const config = await configFile({
    servers: {
      nope: { command: ["/nonexistent/nope-language-server"], extensions: [".nope"] },
      gopls: { command: ["/nonexistent/gopls", "serve"] },
    },
  });
  const { ws, run, daemon, cleanup } = await setup({ flags: ["--config", config] });
  try {
    assert.equal((await run(["call", "diagnostics", "file=src/main.ts"])).code, 0);
    const warm = await daemon();
    const pid = warm.servers.find((s) => s.pid !== undefined)?.pid;
    assert.ok(pid, JSON.stringify(warm));
    await ws.write("notes.nope", "nope\n");
    await ws.write("main.go", "package main\n\nfunc main() {}\n");
    const payload = (file: string) =>
      JSON.stringify({
        session_id: `s-${crypto.randomUUID()}`,
        hook_event_name: "PostToolUse",
        tool_name: "Write",
        tool_input: { file_path: join(ws.root, file) },
      });

    assertQuiet(
      await run(["hook"], payload("notes.nope")),
      /^lspgate hook: could not check 1 file: notes\.nope \(error: SERVER_NOT_INSTALLED: \/nonexistent\/nope-language-server was not found/,
    );
    assertQuiet(
      await run(["hook", "main.go"]),
      /^lspgate hook: could not check 1 file: main\.go \(syntax only: .*gopls/,
    );
    // Its syntax errors are still found: a file checked for syntax is not waved through.
    await ws.write("main.go", "package main\n\nfunc main() {\n");
    const broken = await run(["hook"], payload("main.go"));
    assert.equal(broken.code, 2, broken.stderr);
    assert.match(
      broken.stderr,
      /^lspgate: 1 error, 0 warnings in 1 edited file:\nmain\.go:\d+:\d+ error/,
    );

    // All of it went through the warm daemon, whose deno lsp is the one it had.
    const after = await daemon();
    assert.equal(after.requests - warm.requests >= 3, true, JSON.stringify([warm, after]));
    assert.equal(after.servers.find((s) => s.server.startsWith("deno@"))?.pid, pid);
    assert.equal((await run(["call", "hover", "file=src/main.ts", "line=1", "column=10"])).code, 0);
  } finally {
    await cleanup();
    await Deno.remove(config);
  }
});

Deno.test("a killed server under the daemon is restarted by the next hook, whose report is the restarted server's, exactly", async () => {
  // The deadline is a hang guard here: a restart's cold check must not race the warm 1.5 s.
  const config = await configFile({ hookDeadlineMs: 120_000 });
  const { ws, run, daemon, cleanup } = await setup({ flags: ["--config", config] });
  const running = async () => (await daemon()).servers.find((s) => s.state === "running")?.pid;
  try {
    assert.equal((await run(["call", "hover", "file=src/main.ts", "line=1", "column=10"])).code, 0);
    const pid = await running();
    assert.ok(pid);
    Deno.kill(pid, "SIGKILL");
    // The daemon has seen it die: the hook meets a crashed server, not a dying one.
    await until(async () => (await daemon()).servers.some((s) => s.state === "crashed"), "crashed");

    // An edit that breaks the file. Exit 2 with exactly its error: neither a quiet "could not
    // check" (the server is restarted, as every request restarts a crashed server) nor a clean
    // run (a dead server's silence is not "no errors").
    await ws.write(
      "src/main.ts",
      (await ws.read("src/main.ts")) + 'export const n: number = "x";\n',
    );
    const at = await ws.locate("src/main.ts", "n: number");
    const hook = await run(["hook", "src/main.ts"]);
    assert.equal(hook.code, 2, hook.stderr);
    assert.equal(hook.stdout, "");
    const lines = hook.stderr.trimEnd().split("\n");
    assert.equal(lines[0], "lspgate: 1 error, 0 warnings in 1 edited file:", hook.stderr);
    assert.match(
      lines[1],
      new RegExp(`^src/main\\.ts:${at.line}:${at.column} error \\[deno-ts 2322\\]: `),
    );
    assert.equal(lines.length, 2, hook.stderr);
    const restarted = await running();
    assert.ok(restarted !== undefined && restarted !== pid, `${pid} -> ${restarted}`);

    // Fixed: clean, and nothing said at all.
    await ws.write("src/main.ts", (await ws.read("src/main.ts")).replace('"x"', "1"));
    assert.deepEqual(await run(["hook", "src/main.ts"]), { code: 0, stdout: "", stderr: "" });
    assert.equal(await running(), restarted);
  } finally {
    await cleanup();
    await Deno.remove(config);
  }
});

Deno.test("a server that dies under the warm hook: exit 0 with one line naming the file, and the daemon serves on", async () => {
  // Fault injection: a server of the user's own that crashes right after it starts, while the
  // hook waits for its diagnostics. Unsandboxed: the fake's script is in this checkout.
  const config = await configFile({
    servers: {
      crashy: {
        command: [
          Deno.execPath(),
          "run",
          "-A",
          "--no-config",
          FAKE_SERVER,
          "--mode",
          "crash-always",
        ],
        extensions: [".fake"],
      },
    },
  });
  const { ws, run, daemon, cleanup } = await setup({
    flags: ["--config", config, "--sandbox", "none"],
  });
  try {
    assert.equal((await run(["call", "diagnostics", "file=src/main.ts"])).code, 0);
    const pid = (await daemon()).servers.find((s) => s.server.startsWith("deno@"))?.pid;
    assert.ok(pid);
    await ws.write("b.fake", "fake\n");
    // The hook's part: exit 0, one line naming the file and why. Why is the diagnostics
    // action's: SERVER_EXITED once the crash is known when the request starts; while it waits,
    // the client today says the crash as "timeout: … timed out after 15000 ms" (reported: it
    // should be SERVER_EXITED there too).
    assertQuiet(
      await run(["hook", "b.fake"]),
      /^lspgate hook: could not check 1 file: b\.fake \((error: SERVER_EXITED|timeout): [^)]/,
    );
    assert.equal((await daemon()).servers.find((s) => s.server.startsWith("deno@"))?.pid, pid);
    assert.equal((await run(["call", "hover", "file=src/main.ts", "line=1", "column=10"])).code, 0);
  } finally {
    await cleanup();
    await Deno.remove(config);
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
    const workspace = await workspaceHello(ws.root);
    const sub = await DaemonConnection.open(socket, {
      role: "subagent",
      allowMutations: true,
      workspace,
    });
    assert.equal(sub.granted.allowMutations, false);
    const refused = await sub.request({ id: 1, ...rename });
    assert.equal((refused as { error?: { code: string } }).error?.code, "ACTION_NOT_ALLOWED");
    assert.equal(await ws.read("src/main.ts"), before);
    sub.close();

    const main = await DaemonConnection.open(socket, {
      role: "main",
      allowMutations: true,
      workspace,
    });
    assert.equal(main.granted.allowMutations, true);
    const applied = await main.request({ id: 1, ...rename });
    assert.equal(applied.ok, true, JSON.stringify(applied));
    assert.match(await ws.read("src/main.ts"), /import \{ salute \} from "\.\/greet\.ts";/);
    main.close();

    // A sub-agent's `daemon stop` is refused, and says so: it waited for good for a daemon that
    // never closed (a reviewer's find).
    const stop = await run(["--role", "subagent", "daemon", "stop"]);
    assert.equal(stop.code, 1, stop.stderr);
    assert.match(stop.stderr, /ACTION_NOT_ALLOWED: only a main connection stops the daemon/);
    assert.equal(JSON.parse((await run(["daemon", "status"])).stdout).running, true);
  } finally {
    await cleanup();
  }
});

/** Runs the command `permissions` printed (deno first) with `requests` as its JSON lines. */
async function runPrinted(command: string[], runtime: string, requests: unknown[]) {
  const [, ...args] = command;
  const out = await runToEnd(Deno.execPath(), args, {
    env: { XDG_RUNTIME_DIR: runtime },
    stdin: requests.map((r) => JSON.stringify(r) + "\n").join(""),
  });
  return { answers: out.stdout.trim().split("\n").map((l) => JSON.parse(l)), stderr: out.stderr };
}

Deno.test("a sub-agent run with exactly the flags `permissions --daemon` prints reaches the warm daemon, and writes nothing", async () => {
  const { ws, runtime, run, cleanup } = await setup();
  try {
    assert.equal((await run(["daemon", "start"])).code, 0);
    const printed = await run(["permissions", "--role", "subagent", "--daemon", "--json"]);
    const { command } = JSON.parse(printed.stdout) as { command: string[] };
    const write = command.find((a) => a.startsWith("--allow-write="));
    assert.equal(write, `--allow-write=${join(runtime, "lspgate")}`);
    assert.ok(command.some((a) => /^--allow-net=unix:.*\.sock$/.test(a)), command.join(" "));
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
    const { answers: lines, stderr } = await runPrinted(command, runtime, [hover, rename]);
    assert.equal(stderr.includes("serving in-process"), false);
    assert.equal(lines.find((l) => l.id === 1).ok, true);
    assert.equal(lines.find((l) => l.id === 2).error.code, "ACTION_NOT_ALLOWED");
    const daemon = JSON.parse((await run(["daemon", "status"])).stdout);
    assert.equal(daemon.requests, 2, "both went through the daemon");
    assert.match(await ws.read("src/greet.ts"), /export function greet\(/);
  } finally {
    await cleanup();
  }
});

Deno.test("the flags `permissions --daemon` prints, with no daemon running: answered in-process, and said in one line", async () => {
  const { run, runtime, cleanup } = await setup();
  try {
    const printed = await run(["permissions", "--role", "subagent", "--daemon", "--json"]);
    const { command, permissions } = JSON.parse(printed.stdout) as {
      command: string[];
      permissions: { notes: string[] };
    };
    const notes = permissions.notes;
    assert.ok(notes.some((n) => n.includes("cannot start one")), notes.join("\n"));
    const { answers: [status], stderr } = await runPrinted(command, runtime, [
      { id: 1, action: "status" },
    ]);
    assert.equal(status.ok, true, JSON.stringify(status));
    assert.equal(status.details.daemonPid, undefined, "served in-process");
    const said = stderr.split("\n").filter((l) => l.startsWith("lspgate:"));
    assert.deepEqual(said, [
      "lspgate: no daemon could be reached or started from here (starting one takes --allow-run " +
      "for any program, as `deno task start` grants); serving in-process",
    ]);
    assert.equal(JSON.parse((await run(["daemon", "status"])).stdout).running, false);
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
      workspace: await workspaceHello(ws.root),
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
    const error = (refused as { error?: { code: string; message: string } }).error;
    assert.equal(error?.code, "ACTION_NOT_ALLOWED");
    // The refusal says why, to a client that did give --allow-mutations (not "run with it").
    assert.match(error?.message ?? "", /started without write permission/);
    assert.match(error?.message ?? "", /lspgate daemon stop/);
    assert.doesNotMatch(error?.message ?? "", /run lspgate with --allow-mutations/);
    main.close();
    assert.equal(await ws.read("src/main.ts"), before);
  } finally {
    await cleanup();
  }
});

Deno.test("a runtime folder too long for a Unix socket's path is named as the cause, never a missing grant", async () => {
  const ws = await TempWorkspace.copy("deno");
  const runtime = join(await Deno.realPath(await Deno.makeTempDir()), "r".repeat(110));
  await Deno.mkdir(runtime, { mode: 0o700 });
  try {
    const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0" };
    const start = await runLspgate(["daemon", "start", "--root", ws.root], { env });
    assert.notEqual(start.code, 0);
    assert.match(start.stderr, /longer than the 107 bytes a Unix socket's path may hold/);
    assert.doesNotMatch(start.stderr, /--allow-run/);
  } finally {
    await ws.remove();
    await Deno.remove(join(runtime, ".."), { recursive: true });
  }
});
