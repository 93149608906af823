import assert from "node:assert/strict";
import { join } from "node:path";
import { copyWorkspace, runLspgate } from "../../tests/fixtures/frontends/workspace.ts";
import { parsePayload } from "./hook.ts";

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
});

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

Deno.test("lspgate hook skips files outside the workspace, missing or of unknown type quietly", async () => {
  await using ws = await copyWorkspace();
  await ws.write("notes.txt", "not code\n");
  const outside = await Deno.makeTempFile({ prefix: "lspgate_outside_", suffix: ".ts" });
  try {
    await Deno.writeTextFile(outside, BROKEN);
    const result = await runLspgate([
      "hook",
      outside,
      "notes.txt",
      "src/gone.ts",
      "--root",
      ws.root,
    ]);
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

Deno.test("lspgate hook: a payload that is not JSON is lspgate's own failure, exit 1", async () => {
  await using ws = await copyWorkspace();
  const result = await runLspgate(["hook", "--root", ws.root], "{not json");
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^lspgate hook: stdin is not JSON/);
});
