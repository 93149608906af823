// Wall 2, the policy: a sub-agent never runs a write action, whatever allowMutations says; main
// runs one only with mutations allowed; each refusal is ACTION_NOT_ALLOWED naming the role or flag
// and happens before any language server starts. Previews and read-only raw requests still work.
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertOk, assertRefused, snapshotTree, withFixture } from "./fixture.ts";

const AT_ALPHA = { file: "src/a.ts", line: 1, column: 14 };
const raw = (query: string, payload: unknown = {}) => ({
  action: "request",
  file: "src/a.ts",
  query,
  payload,
});

const WRITES: { name: string; request: Record<string, unknown> }[] = [
  {
    name: "rename with apply",
    request: { action: "rename", ...AT_ALPHA, new_name: "insideOnly", apply: true },
  },
  { name: "format with apply", request: { action: "format", file: "src/a.ts", apply: true } },
  {
    name: "code_actions with apply",
    request: {
      action: "code_actions",
      file: "src/a.ts",
      line: 1,
      column: 1,
      query: "Fix inside",
      apply: true,
    },
  },
  {
    name: "rename_file with apply",
    request: { action: "rename_file", file: "src/b.ts", new_name: "src/c.ts", apply: true },
  },
  { name: "restart", request: { action: "restart" } },
  {
    name: "request workspace/executeCommand",
    request: raw("workspace/executeCommand", { command: "hostile.run" }),
  },
  { name: "request workspace/applyEdit", request: raw("workspace/applyEdit", { edit: {} }) },
  {
    name: "request textDocument/didSave (a notification)",
    request: raw("textDocument/didSave", { textDocument: { uri: "$FILE" } }),
  },
  { name: "request shutdown", request: raw("shutdown") },
  {
    name: "an aliased codeAction with apply (another agent's schema)",
    request: {
      operation: "codeAction",
      filePath: "src/a.ts",
      line: 1,
      character: 1,
      query: "Fix inside",
      apply: true,
    },
  },
];

const CALLERS = [
  {
    who: "subagent with allowMutations",
    role: "subagent",
    allowMutations: true,
    names: "--role subagent",
  },
  { who: "subagent", role: "subagent", allowMutations: false, names: "--role subagent" },
  {
    who: "main without mutations",
    role: "main",
    allowMutations: false,
    names: "--allow-mutations",
  },
] as const;

for (const { name, request } of WRITES) {
  for (const caller of CALLERS) {
    Deno.test(`policy: ${name} from ${caller.who} is ACTION_NOT_ALLOWED naming ${caller.names}`, () =>
      withFixture(async (fx) => {
        const before = await snapshotTree(fx.root);
        const session = await fx.open(caller);
        assertRefused(await fx.ask(session, request), "ACTION_NOT_ALLOWED", request, [
          caller.names,
        ]);
        assert.deepEqual(await snapshotTree(fx.root), before, "the workspace changed");
        assert.deepEqual(await fx.logEntries(), [], "a language server ran before the refusal");
      }));
  }
}

Deno.test("policy control: main with mutations runs each write action", () =>
  withFixture(async (fx) => {
    const session = await fx.open({ role: "main", allowMutations: true });
    for (const { request } of WRITES.slice(0, 6)) {
      assertOk(await fx.ask(session, request), request);
    }
    const a = await Deno.readTextFile(join(fx.root, "src/a.ts"));
    assert.match(a, /\/\/ renamed to insideOnly/);
    assert.match(a, /\/\/ formatted/);
    assert.match(a, /\/\/ fix/);
    assert.ok((await Deno.lstat(join(fx.root, "src/c.ts"))).isFile, "rename_file did not move");
  }));

const PREVIEWS: { name: string; request: Record<string, unknown> }[] = [
  { name: "rename preview", request: { action: "rename", ...AT_ALPHA, new_name: "insideOnly" } },
  { name: "format preview", request: { action: "format", file: "src/a.ts" } },
  { name: "code_actions list", request: { action: "code_actions", ...AT_ALPHA } },
  {
    name: "rename_file preview",
    request: { action: "rename_file", file: "src/b.ts", new_name: "src/c.ts" },
  },
  {
    name: "request textDocument/hover",
    request: raw("textDocument/hover", {
      textDocument: { uri: "$FILE" },
      position: { line: 0, character: 0 },
    }),
  },
  {
    // Allowlisted as read: the WorkspaceEdit (outside edits included) is returned, never applied.
    name: "request textDocument/rename",
    request: raw("textDocument/rename", {
      textDocument: { uri: "$FILE" },
      position: { line: 0, character: 13 },
      newName: "mixed",
    }),
  },
  { name: "status", request: { action: "status" } },
];

for (const { name, request } of PREVIEWS) {
  Deno.test(`policy: ${name} is allowed for a subagent and writes nothing`, () =>
    withFixture(async (fx) => {
      const before = await snapshotTree(fx.root);
      const session = await fx.open({ role: "subagent", allowMutations: true });
      const response = assertOk(await fx.ask(session, request), request);
      if ("applied" in response.details) assert.equal(response.details.applied, false);
      assert.deepEqual(await snapshotTree(fx.root), before, "the workspace changed");
    }));
}
