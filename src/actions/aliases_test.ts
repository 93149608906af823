import assert from "node:assert/strict";
import { canonicalAction, normalizeRequest } from "./aliases.ts";

Deno.test("normalizeRequest() maps another agent's lsp fields to ours", () => {
  assert.deepEqual(
    normalizeRequest({
      id: 3,
      operation: "goToDefinition",
      filePath: "src/a.ts",
      line: 4,
      character: 9,
    }),
    { id: 3, action: "definition", file: "src/a.ts", line: 4, column: 9 },
  );
});

Deno.test("canonicalAction() accepts camelCase, kebab-case and snake_case spellings", () => {
  assert.equal(canonicalAction("findReferences"), "references");
  assert.equal(canonicalAction("go-to-implementation"), "implementation");
  assert.equal(canonicalAction("prepareCallHierarchy"), "call_hierarchy");
  assert.equal(canonicalAction("incoming_calls"), "incoming_calls");
  assert.equal(canonicalAction("documentSymbol"), "symbols");
  assert.equal(canonicalAction("codeAction"), "code_actions");
  assert.equal(canonicalAction("frobnicate"), undefined);
});

Deno.test("normalizeRequest() turns workspaceSymbol and workspace-diagnostics into workspace-wide calls", () => {
  assert.deepEqual(
    normalizeRequest({ operation: "workspaceSymbol", filePath: "a.ts", query: "Foo", line: 1 }),
    { action: "symbols", file: "*", query: "Foo" },
  );
  assert.deepEqual(normalizeRequest({ action: "workspace-diagnostics" }), {
    action: "diagnostics",
    file: "*",
  });
});

Deno.test("normalizeRequest() keeps a field given under two names so validation reports it", () => {
  const out = normalizeRequest({ action: "hover", file: "a.ts", filePath: "b.ts" });
  assert.equal(out.file, "a.ts");
  assert.equal(out.filePath, "b.ts");
});

Deno.test("normalizeRequest() takes editHash for edit_hash", () => {
  const hash = "a".repeat(64);
  assert.deepEqual(
    normalizeRequest({ action: "rename", newName: "x", apply: true, editHash: hash }),
    { action: "rename", new_name: "x", apply: true, edit_hash: hash },
  );
});

Deno.test("normalizeRequest() takes ifClean for if_clean", () => {
  assert.deepEqual(
    normalizeRequest({ operation: "format", filePath: "a.ts", apply: true, ifClean: true }),
    { action: "format", file: "a.ts", apply: true, if_clean: true },
  );
});

Deno.test("normalizeRequest() keeps fields named like Object's own properties as plain fields", () => {
  const out = normalizeRequest(
    JSON.parse('{"action":"status","constructor":1,"__proto__":{"a":1}}'),
  );
  assert.deepEqual(Object.keys(out), ["action", "constructor", "__proto__"]);
  assert.equal(out.constructor, 1);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(canonicalAction("constructor"), undefined);
  assert.equal(canonicalAction("__proto__"), undefined);
});
