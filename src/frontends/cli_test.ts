import assert from "node:assert/strict";
import {
  copyWorkspace,
  openTestSession,
  runLspgate,
} from "../../tests/fixtures/frontends/workspace.ts";
import { parseCallArgs, runCall } from "./cli.ts";

Deno.test("parseCallArgs() parses numbers, booleans and lists by field, and keeps strings", async () => {
  assert.deepEqual(
    await parseCallArgs([
      "rename",
      "file=src/a.ts",
      "line=12",
      "column=3",
      "new_name=123",
      "apply=true",
      "include_declaration=false",
    ]),
    {
      action: "rename",
      file: "src/a.ts",
      line: 12,
      column: 3,
      new_name: "123",
      apply: true,
      include_declaration: false,
    },
  );
  assert.deepEqual(await parseCallArgs(["diagnostics", "files=a.ts,b.ts", "files=c.ts"]), {
    action: "diagnostics",
    files: ["a.ts", "b.ts", "c.ts"],
  });
  assert.deepEqual(await parseCallArgs(["request", 'payload={"a": 1}', "query=x=y"]), {
    action: "request",
    payload: '{"a": 1}',
    query: "x=y",
  });
  // Left for the session to refuse with a message that says what a line is.
  assert.deepEqual(await parseCallArgs(["hover", "line=two"]), { action: "hover", line: "two" });
  // Another tool's spelling: a guess the session checks.
  assert.deepEqual(await parseCallArgs(["hover", "character=4"]), {
    action: "hover",
    character: 4,
  });
});

Deno.test("parseCallArgs() says what is wrong with bad usage", async () => {
  assert.match(
    await parseCallArgs([]) as string,
    /first argument is the action, one of: definition/,
  );
  assert.match(await parseCallArgs(["file=a.ts"]) as string, /first argument is the action/);
  assert.match(await parseCallArgs(["hover", "file"]) as string, /expected key=value, got `file`/);
  assert.match(await parseCallArgs(["hover", "=x"]) as string, /expected key=value/);
  assert.match(await parseCallArgs(["hover", "line=1", "line=2"]) as string, /line is given twice/);
});

Deno.test("runCall() --json prints the whole error Response on stdout and returns 1", async () => {
  await using ws = await copyWorkspace();
  const outside = await Deno.makeTempFile({ prefix: "lspgate_outside_", suffix: ".ts" });
  const printed: string[] = [];
  const log = console.log;
  console.log = (text: string) => printed.push(text);
  try {
    const session = await openTestSession(ws.root);
    const code = await runCall(session, [
      "hover",
      `file=${outside}`,
      "line=1",
      "column=1",
      "--json",
    ]);
    assert.equal(code, 1);
  } finally {
    console.log = log;
    await Deno.remove(outside);
  }
  const response = JSON.parse(printed.join("\n"));
  assert.equal(response.ok, false);
  assert.equal(response.error.code, "OUTSIDE_WORKSPACE");
});

Deno.test("lspgate call: definition prints the location and exits 0", async () => {
  await using ws = await copyWorkspace();
  const target = await ws.find("src/greet.ts", "greet(");
  const result = await runLspgate([
    "call",
    "definition",
    "file=src/main.ts",
    "line=2",
    "symbol=greet",
    "--root",
    ws.root,
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^1 definition of `greet` at src\/main\.ts:2:13:/);
  assert.ok(result.stdout.includes(`src/greet.ts:${target.line}:${target.column}\n`));
});

Deno.test("lspgate call: an error Response exits 1 with CODE: message on stderr", async () => {
  await using ws = await copyWorkspace();
  const result = await runLspgate([
    "call",
    "definition",
    "file=src/main.ts",
    "line=2",
    "symbol=nowhere",
    "--root",
    ws.root,
  ]);
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /^SYMBOL_NOT_FOUND: .*nowhere/);
});

Deno.test("lspgate call: bad usage exits 2 with the usage line", async () => {
  await using ws = await copyWorkspace();
  const result = await runLspgate(["call", "definition", "src/main.ts", "--root", ws.root]);
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /expected key=value, got `src\/main\.ts`\nusage: lspgate call ACTION/,
  );
});

Deno.test("parseCallArgs() reads check and if_clean as booleans and edits as JSON", async () => {
  assert.deepEqual(
    await parseCallArgs([
      "diagnostics",
      "file=a.ts",
      'edits=[{"line":1,"column":1,"endLine":1,"endColumn":2,"newText":"x"}]',
    ]),
    {
      action: "diagnostics",
      file: "a.ts",
      edits: [{ line: 1, column: 1, endLine: 1, endColumn: 2, newText: "x" }],
    },
  );
  assert.deepEqual(
    await parseCallArgs(["rename", "file=a.ts", "check=true", "apply=true", "if_clean=false"]),
    { action: "rename", file: "a.ts", check: true, apply: true, if_clean: false },
  );
});
