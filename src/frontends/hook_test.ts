import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { fakeAdapter } from "../../tests/fakes/fake_server.ts";
import {
  copyWorkspace,
  runLspgate,
  type RunResult,
} from "../../tests/fixtures/frontends/workspace.ts";
import { type HookFileResult, hookReport, parsePayload, runHook } from "./hook.ts";
import { oneLine } from "./hook_report.ts";

const BROKEN = 'export const count: number = "three";\n';
const FIXED = "export const count: number = 3;\n";

/** A Claude Code PostToolUse payload for a Write of `path`. */
function writePayload(cwd: string, path: string, content: string): string {
  return JSON.stringify({
    session_id: "test",
    transcript_path: "/tmp/transcript.jsonl",
    cwd,
    hook_event_name: "PostToolUse",
    tool_name: "Write",
    tool_input: { file_path: path, content },
    tool_response: { filePath: path, success: true },
  });
}

Deno.test("parsePayload() takes the edited file from the hook payloads agents send", () => {
  assert.deepEqual(
    parsePayload(writePayload("/ws", "/ws/src/a.ts", "x")),
    ["/ws/src/a.ts"],
  );
  assert.deepEqual(parsePayload('{"tool_input": {"filePath": "/ws/b.ts"}}'), ["/ws/b.ts"]);
  assert.deepEqual(parsePayload('{"tool_input": {"path": "c.ts"}, "cwd": "/ws"}'), ["/ws/c.ts"]);
  assert.deepEqual(parsePayload('{"tool_response": {"filePath": "/ws/d.ts"}}'), ["/ws/d.ts"]);
  assert.deepEqual(parsePayload('{"tool_name": "Bash", "tool_input": {"command": "ls"}}'), []);
  assert.match(parsePayload("not json") as string, /stdin is not JSON/);
  assert.match(parsePayload("[1]") as string, /not a JSON object/);
  assert.match(parsePayload(" \n") as string, /^no hook payload on stdin/);
  // A path that is not a string is a bad payload, said in one line (it was a silent clean run);
  // no path at all is a clean run (a Bash call).
  assert.equal(
    parsePayload('{"tool_input": {"file_path": ["a.ts"]}}'),
    "the hook payload's tool_input.file_path is not a string (a path)",
  );
  assert.deepEqual(parsePayload('{"tool_input": null}'), []);
});

Deno.test("oneLine() shows a control character escaped, never raw: a crafted path's NUL", () => {
  assert.equal(
    oneLine("could not check a\u0000b.py\u001b[31m", 100),
    "could not check a\\u0000b.py\\u001b[31m",
  );
});

const FAKE_SERVER = fileURLToPath(new URL("../../tests/fakes/fake_server.ts", import.meta.url));

/**
 * A user config (the only place a command may come from) adding two servers: `.nope` files'
 * server is not installed, `.fake` files' server crashes right after it starts.
 */
async function brokenServersConfig(): Promise<string> {
  const file = await Deno.makeTempFile({ prefix: "lspgate_hook_config_", suffix: ".jsonc" });
  await Deno.writeTextFile(
    file,
    JSON.stringify({
      servers: {
        nope: { command: ["/nonexistent/nope-language-server"], extensions: [".nope"] },
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
    }),
  );
  return file;
}

/** Exit 0, nothing on stdout, and exactly one `lspgate hook: …` line on stderr matching `line`. */
function assertOneLine(result: RunResult, line: RegExp): void {
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "");
  assert.equal(result.stderr.split("\n").filter(Boolean).length, 1, result.stderr);
  assert.match(result.stderr, /^lspgate hook: [^\n]*\n$/);
  assert.match(result.stderr.trimEnd(), line);
  assert.doesNotMatch(result.stderr, /INTERNAL/);
}

Deno.test("lspgate hook FILE: a type error exits 2 naming the line; fixed, 0; warnings only, 0 with them on stdout", async () => {
  await using ws = await copyWorkspace();
  await ws.write("src/count.ts", BROKEN);
  const where = await ws.find("src/count.ts", "count");
  const broken = await runLspgate(["hook", "src/count.ts", "--root", ws.root]);
  assert.equal(broken.code, 2, broken.stderr);
  assert.match(broken.stderr, /^lspgate: 1 error, 0 warnings in 1 edited file:\n/);
  assert.ok(
    broken.stderr.includes(`src/count.ts:${where.line}:${where.column} error [deno-ts 2322]: `),
    broken.stderr,
  );
  assert.equal(broken.stdout, "");

  await ws.write("src/count.ts", FIXED);
  const fixed = await runLspgate(["hook", "src/count.ts", "--root", ws.root]);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.equal(fixed.stdout + fixed.stderr, "");

  await ws.write("src/count.ts", `${FIXED}let spare = 1;\n`);
  const warned = await runLspgate(["hook", "src/count.ts", "--root", ws.root]);
  assert.equal(warned.code, 0, warned.stderr);
  assert.equal(warned.stderr, "");
  assert.match(warned.stdout, /^lspgate: 0 errors, \d+ warnings? in 1 edited file:\n/);
  assert.match(warned.stdout, /src\/count\.ts:2:5 warning \[deno-lint [a-z-]+\]: `spare`/);
});

Deno.test("lspgate hook with a Claude Code payload on stdin: exit 2 on the error, 0 once fixed", async () => {
  await using ws = await copyWorkspace();
  const path = join(ws.root, "src/count.ts");
  await ws.write("src/count.ts", BROKEN);
  const where = await ws.find("src/count.ts", "count");
  const broken = await runLspgate(["hook", "--root", ws.root], writePayload(ws.root, path, BROKEN));
  assert.equal(broken.code, 2, broken.stderr);
  assert.ok(
    broken.stderr.includes(`src/count.ts:${where.line}:${where.column} error [deno-ts 2322]: `),
    broken.stderr,
  );

  await ws.write("src/count.ts", FIXED);
  const fixed = await runLspgate(["hook", "--root", ws.root], writePayload(ws.root, path, FIXED));
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.equal(fixed.stdout + fixed.stderr, "");
});

Deno.test("lspgate hook skips files outside the workspace and missing files quietly", async () => {
  await using ws = await copyWorkspace();
  const outside = await Deno.makeTempFile({ prefix: "lspgate_outside_", suffix: ".ts" });
  try {
    await Deno.writeTextFile(outside, BROKEN);
    const result = await runLspgate(["hook", outside, "src/gone.ts", "--root", ws.root]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout + result.stderr, "");
    const payload = await runLspgate(
      ["hook", "--root", ws.root],
      writePayload(ws.root, outside, BROKEN),
    );
    assert.equal(payload.code, 0, payload.stderr);
    assert.equal(payload.stdout + payload.stderr, "");
  } finally {
    await Deno.remove(outside);
  }
});

Deno.test("lspgate hook: a file no server handles exits 0 with one line naming it", async () => {
  await using ws = await copyWorkspace();
  await ws.write("notes.txt", "not code\n");
  const result = await runLspgate(["hook", "notes.txt", "--root", ws.root]);
  assertOneLine(
    result,
    /^lspgate hook: could not check 1 file: notes\.txt \(unsupported: No language server handles \.txt files/,
  );
});

Deno.test("lspgate hook: a bad payload is lspgate's own failure, exit 0 with one line", async () => {
  await using ws = await copyWorkspace();
  assertOneLine(
    await runLspgate(["hook", "--root", ws.root], "{not json"),
    /^lspgate hook: stdin is not JSON; expected a hook payload such as /,
  );
  assertOneLine(
    await runLspgate(["hook", "--root", ws.root], '["src/main.ts"]'),
    /^lspgate hook: the hook payload on stdin is not a JSON object$/,
  );
  assertOneLine(
    await runLspgate(["hook", "--root", ws.root], ""),
    /^lspgate hook: no hook payload on stdin; /,
  );
});

Deno.test("lspgate hook --event: a warm-up needs no payload; the end-of-turn report says it needs the session's", async () => {
  await using ws = await copyWorkspace();
  const args = ["--root", ws.root, "--no-daemon"];
  assert.deepEqual(await runLspgate(["hook", "--event", "session-start", ...args], ""), {
    code: 0,
    stdout: "",
    stderr: "",
  });
  assertOneLine(
    await runLspgate(["hook", "--event", "stop", ...args], ""),
    /^lspgate hook: the end-of-turn report needs the payload's session_id$/,
  );
});

Deno.test("lspgate hook: bad flags or config exit 0 with one usage line, never INTERNAL", async () => {
  await using ws = await copyWorkspace();
  await ws.write("src/count.ts", BROKEN);
  const invalid = await Deno.makeTempFile({ prefix: "lspgate_hook_config_", suffix: ".jsonc" });
  try {
    await Deno.writeTextFile(invalid, '{\n  "timeoutMs": "soon"\n}\n');
    const cases: [string[], RegExp][] = [
      [["--bogus"], /^lspgate hook: usage: unknown flag --bogus \(see lspgate --help\)$/],
      [["--timeout"], /^lspgate hook: usage: --timeout needs a value \(--timeout MS; /],
      [["--timeout", "soon"], /^lspgate hook: usage: --timeout must be a whole number of /],
      [["--role", "boss"], /^lspgate hook: usage: --role must be main or subagent, not `boss`/],
      [
        ["--event", "session_start"],
        /^lspgate hook: usage: --event must be stop, session-start, read, not `session_start`/,
      ],
      [
        ["--sandbox", "jail"],
        /^lspgate hook: usage: --sandbox must be auto, bwrap, landlock or none/,
      ],
      [["--config", "/nonexistent/lspgate.jsonc"], /^lspgate hook: usage: --config: cannot read /],
      [["--config", invalid], /^lspgate hook: usage: --config: config [^ ]+:2: timeoutMs: /],
    ];
    for (const [flags, line] of cases) {
      assertOneLine(await runLspgate(["hook", "src/count.ts", "--root", ws.root, ...flags]), line);
    }
    // Flags before the command, and a root that is not there.
    assertOneLine(
      await runLspgate(["--root", join(ws.root, "gone"), "hook", "src/count.ts"]),
      /^lspgate hook: usage: --root [^ ]+\/gone: no such folder/,
    );
  } finally {
    await Deno.remove(invalid);
  }
});

Deno.test("lspgate hook: a server not installed or crashed exits 0 with one line; a real error elsewhere still exits 2", async () => {
  await using ws = await copyWorkspace();
  const config = await brokenServersConfig();
  try {
    await ws.write("a.nope", "nope\n");
    await ws.write("b.fake", "fake\n");
    const flags = ["--root", ws.root, "--config", config, "--sandbox", "none"];
    const broken = await runLspgate(["hook", "a.nope", "b.fake", ...flags]);
    assertOneLine(
      broken,
      /^lspgate hook: could not check 2 files: a\.nope \(error: SERVER_NOT_INSTALLED: \/nonexistent\/nope-language-server was not found.*\); b\.fake \((timeout|error): [^)]/,
    );

    await ws.write("src/count.ts", BROKEN);
    const where = await ws.find("src/count.ts", "count");
    const mixed = await runLspgate(["hook", "src/count.ts", "a.nope", ...flags]);
    assert.equal(mixed.code, 2, mixed.stderr);
    assert.equal(mixed.stdout, "");
    const lines = mixed.stderr.trimEnd().split("\n");
    assert.equal(lines[0], "lspgate: 1 error, 0 warnings in 1 edited file:");
    assert.ok(
      lines[1].startsWith(`src/count.ts:${where.line}:${where.column} error [deno-ts 2322]: `),
    );
    assert.match(lines.at(-1)!, /^not checked: a\.nope \(error: SERVER_NOT_INSTALLED: /);
  } finally {
    await Deno.remove(config);
  }
});

Deno.test("lspgate hook: with its server missing, a Python file is checked for syntax: errors exit 2, clean is one line", async () => {
  await using ws = await copyWorkspace();
  const config = await Deno.makeTempFile({ prefix: "lspgate_hook_config_", suffix: ".jsonc" });
  try {
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        servers: {
          pyright: { command: ["/nonexistent/pyright-langserver", "--stdio"] },
          basedpyright: { disabled: true },
          ruff: { disabled: true },
        },
      }),
    );
    // Unsandboxed: under bubblewrap a missing command is not found until bwrap runs it.
    const flags = ["--root", ws.root, "--config", config, "--sandbox", "none"];
    await ws.write("app.py", "def add(a, b)\n    return a + b\n");
    const broken = await runLspgate(["hook", "app.py", ...flags]);
    assert.equal(broken.code, 2, broken.stderr);
    assert.match(
      broken.stderr,
      /^lspgate: 1 error, 0 warnings in 1 edited file:\napp\.py:1:\d+ error: /,
    );

    await ws.write("app.py", "def add(a, b):\n    return a + b\n");
    assertOneLine(
      await runLspgate(["hook", "app.py", ...flags]),
      /^lspgate hook: could not check 1 file: app\.py \(syntax only: .*pyright/,
    );
  } finally {
    await Deno.remove(config);
  }
});

Deno.test("runHook() gives up at its deadline on a server that never answers: exit 0, one line", async () => {
  await using ws = await copyWorkspace();
  await ws.write("slow.fake", "fake\n");
  const session = await Session.open({
    root: ws.root,
    role: "main",
    allowMutations: false,
    adapters: [...ADAPTERS, fakeAdapter("never-answer")],
    config: defaultConfig(),
  });
  const said: string[] = [];
  const logged = { error: console.error, log: console.log };
  console.error = console.log = (text: string) => said.push(text);
  let code: number;
  const started = performance.now();
  try {
    code = await runHook(session, ["slow.fake"], { deadlineMs: 1_500 });
  } finally {
    Object.assign(console, logged);
  }
  assert.equal(code, 0);
  assert.ok(performance.now() - started < 10_000);
  assert.deepEqual(said, [
    "lspgate hook: gave up after 1.5 s: the diagnostics were not ready in time",
  ]);
});

Deno.test("hookReport() bounds the report: 60 lines, 4 lines and 400 characters a message", () => {
  const long = Array.from({ length: 20 }, (_, i) => `line ${i} ${"x".repeat(150)}`).join("\n");
  const results: HookFileResult[] = Array.from({ length: 50 }, (_, f) => ({
    file: `src/f${f}.ts`,
    status: "ok" as const,
    diagnostics: Array.from({ length: 10 }, (_, i) => ({
      line: i + 1,
      column: 1,
      endLine: i + 1,
      endColumn: 2,
      severity: "error" as const,
      message: long,
      source: "ts",
      code: 2322,
    })),
  }));
  const report = hookReport(results);
  assert.equal(report.code, 2);
  assert.equal(report.stdout, "");
  assert.ok(report.stderr.length <= 20_100, `${report.stderr.length} characters`);
  const lines = report.stderr.split("\n");
  assert.ok(lines.length <= 1 + 60 * 5 + 1, `${lines.length} lines`);
  assert.equal(lines.filter((l) => l.startsWith("src/")).length <= 60, true);
  assert.equal(lines[0], "lspgate: 500 errors, 0 warnings in 50 edited files:");
  assert.match(lines.at(-1)!, /^… and \d+ more( \(report cut at 20000 characters\))?$/);
  const first = report.stderr.split("\nsrc/")[1];
  assert.ok(first.startsWith("f0.ts:1:1 error [ts 2322]: line 0 "), first);
  assert.ok(first.length <= 400 + 40, `${first.length}`);
  assert.ok(first.endsWith("…"));
  assert.ok(
    hookReport([{
      ...results[0],
      diagnostics: [{ ...results[0].diagnostics[0], message: "a\nb\nc\nd\ne\nf" }],
    }])
      .stderr.endsWith("error [ts 2322]: a\n    b\n    c\n    d\n    … (2 more lines)"),
  );
});

Deno.test("hookReport() counts the edited files checked, clean ones too, and not those it could not check", () => {
  const error = {
    line: 3,
    column: 21,
    endLine: 3,
    endColumn: 26,
    severity: "error" as const,
    message: "Expected 2 arguments, but got 1.",
    source: "typescript",
    code: 2554,
  };
  const report = hookReport(
    [
      { file: "src/util.ts", status: "ok", diagnostics: [] },
      { file: "src/notes.ts", status: "timeout", message: "not ready", diagnostics: [] },
    ],
    [],
    [{ file: "src/main.ts", caused: [error] }],
  );
  assert.equal(report.code, 2);
  assert.equal(
    report.stderr.split("\n")[0],
    "lspgate: 0 errors, 0 warnings in 1 edited file; 1 error it caused in 1 importing file:",
  );
  assert.match(report.stderr, /\nnot checked: src\/notes\.ts \(timeout: not ready\)$/);
  // A file whose warnings came before its time ran out counts with them.
  const warned = hookReport([{
    file: "src/notes.ts",
    status: "timeout",
    message: "not ready",
    diagnostics: [{ ...error, severity: "warning" }],
  }]);
  assert.match(warned.stdout, /^lspgate: 0 errors, 1 warning in 1 edited file:\n/);
});

Deno.test("hookReport() with warnings and an unchecked file: exit 0, warnings on stdout, one line on stderr", () => {
  const warning = {
    line: 2,
    column: 5,
    endLine: 2,
    endColumn: 10,
    severity: "warning" as const,
    message: "`spare` is never used",
    source: "deno-lint",
    code: "no-unused-vars",
  };
  const report = hookReport([
    { file: "src/a.ts", status: "ok", diagnostics: [warning] },
    {
      file: "src/b.ts",
      status: "timeout",
      diagnostics: [],
      message: "diagnostics not available yet (timed out after 15000 ms)",
    },
    {
      file: "c.py",
      status: "ok",
      diagnostics: [],
      syntaxOnly: true,
      reason: "pyright is not installed",
    },
  ]);
  assert.deepEqual(report, {
    code: 0,
    stdout: "lspgate: 0 errors, 1 warning in 1 edited file:\n" +
      "src/a.ts:2:5 warning [deno-lint no-unused-vars]: `spare` is never used",
    stderr: "lspgate hook: could not check 2 files: src/b.ts (timeout: diagnostics not " +
      "available yet (timed out after 15000 ms)); c.py (syntax only: pyright is not installed)",
  });
  assert.deepEqual(hookReport([]), { code: 0, stdout: "", stderr: "" });
});
