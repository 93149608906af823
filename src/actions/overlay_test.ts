import assert from "node:assert/strict";
import type { DiagnosticView } from "./diagnostics.ts";
import { compareDiagnostics } from "./overlay.ts";

const error = (
  line: number,
  column: number,
  endColumn: number,
  message: string,
): DiagnosticView => ({
  line,
  column,
  endLine: line,
  endColumn,
  severity: "error",
  message,
  source: "ts",
  code: 2322,
});

Deno.test("compareDiagnostics() keeps a diagnostic whose line moved as unchanged", () => {
  const before = "const a: number = 'x';\n";
  const after = "// a new first line\nconst a: number = 'x';\n";
  const diff = compareDiagnostics(
    { text: before, diagnostics: [error(1, 7, 8, "Type 'string' is not assignable")] },
    { text: after, diagnostics: [error(2, 7, 8, "Type 'string' is not assignable")] },
  );
  assert.deepEqual(diff, { added: [], removed: [], unchanged: 1 });
});

Deno.test("compareDiagnostics() tells the same message over other text apart", () => {
  const before = "const a: number = 'x';\n";
  const after = "const a: number = 'x';\nconst b: number = 'y';\n";
  const message = "Type 'string' is not assignable";
  const diff = compareDiagnostics(
    { text: before, diagnostics: [error(1, 7, 8, message)] },
    { text: after, diagnostics: [error(1, 7, 8, message), error(2, 7, 8, message)] },
  );
  assert.equal(diff.unchanged, 1);
  assert.deepEqual(diff.added, [error(2, 7, 8, message)]);
  assert.deepEqual(diff.removed, []);
});

Deno.test("compareDiagnostics() counts repeats: two the same before, one after", () => {
  const text = "x x\n";
  const diff = compareDiagnostics(
    { text, diagnostics: [error(1, 1, 2, "bad x"), error(1, 3, 4, "bad x")] },
    { text, diagnostics: [error(1, 1, 2, "bad x")] },
  );
  assert.equal(diff.unchanged, 1);
  assert.deepEqual(diff.added, []);
  assert.deepEqual(diff.removed, [error(1, 3, 4, "bad x")]);
});

Deno.test("compareDiagnostics() compares across lines and code points", () => {
  const before = "名前 = 😀(\n  1)\n";
  const after = "\n名前 = 😀(\n  1)\n";
  const span = (line: number): DiagnosticView => ({
    line,
    column: 6,
    endLine: line + 1,
    endColumn: 5,
    severity: "warning",
    message: "call",
  });
  const diff = compareDiagnostics(
    { text: before, diagnostics: [span(1)] },
    { text: after, diagnostics: [span(2)] },
  );
  assert.deepEqual(diff, { added: [], removed: [], unchanged: 1 });
});

Deno.test("compareDiagnostics() after a rename: an error that names only the new name is the one from before", () => {
  // TS2554 on `greet()` before renaming greet to salute is the same error on `salute()` after.
  const before = "function greet(n: string) {}\ngreet();\n";
  const after = "function salute(n: string) {}\nsalute();\n";
  const was = error(2, 1, 6, "Expected 1 arguments, but got 0.");
  const now = error(2, 1, 7, "Expected 1 arguments, but got 0.");
  const renamed = { from: "greet", to: "salute" };
  const kept = compareDiagnostics(
    { text: before, diagnostics: [was] },
    { text: after, diagnostics: [now] },
    renamed,
  );
  assert.deepEqual(kept, { added: [], removed: [], unchanged: 1 });
  // Without the rename said, it reads as one added and one cleared; and an error the rename
  // brings (the new name taken) is added all the same.
  const unsaid = compareDiagnostics({ text: before, diagnostics: [was] }, {
    text: after,
    diagnostics: [now],
  });
  assert.equal(unsaid.added.length, 1);
  const clash = error(1, 10, 16, "Duplicate function implementation 'salute'.");
  const brought = compareDiagnostics(
    { text: before, diagnostics: [was] },
    { text: after, diagnostics: [now, clash] },
    renamed,
  );
  assert.deepEqual(brought.added, [clash]);
});

Deno.test("compareDiagnostics() after a rename to a common word: the message's own words stay as they are", () => {
  // Renaming kind to type: "… on type '{ a: number; }'" read as "… on kind …" counted the error
  // the code had as added and cleared (a reviewer's find). Only a quoted name is read back.
  const message = "Property 'b' does not exist on type '{ a: number; }'.";
  const before = "const kind = { a: 1 };\nkind.b;\n";
  const after = "const type = { a: 1 };\ntype.b;\n";
  const diff = compareDiagnostics(
    { text: before, diagnostics: [error(2, 6, 7, message)] },
    { text: after, diagnostics: [error(2, 6, 7, message)] },
    { from: "kind", to: "type" },
  );
  assert.deepEqual(diff, { added: [], removed: [], unchanged: 1 });
  // A quoted name in the message is the renamed one.
  const unused = (name: string) =>
    error(1, 7, 7 + name.length, `'${name}' is declared but never used.`);
  const renamed = compareDiagnostics(
    { text: before, diagnostics: [unused("kind")] },
    { text: after, diagnostics: [unused("type")] },
    { from: "kind", to: "type" },
  );
  assert.deepEqual(renamed, { added: [], removed: [], unchanged: 1 });
});

Deno.test("compareDiagnostics() after a rename: an unquoted name (gopls), a `$` in a name, and another thing of the new name", () => {
  const same = (
    before: [string, DiagnosticView],
    after: [string, DiagnosticView],
    renamed: { from: string; to: string },
  ) =>
    compareDiagnostics(
      { text: before[0], diagnostics: [before[1]] },
      { text: after[0], diagnostics: [after[1]] },
      renamed,
    );
  // gopls names it unquoted: "declared and not used: counter".
  const unused = (name: string) => error(1, 1, 1 + name.length, `declared and not used: ${name}`);
  assert.deepEqual(
    same(["counter := 1\n", unused("counter")], ["total := 1\n", unused("total")], {
      from: "counter",
      to: "total",
    }),
    { added: [], removed: [], unchanged: 1 },
  );
  // `$$x` put back as text, not as a replacement pattern (`$$` is `$` there).
  const declared = (name: string) => error(1, 7, 7 + name.length, `'${name}' is declared.`);
  assert.deepEqual(
    same(["const $$x = 1;\n", declared("$$x")], ["const y = 1;\n", declared("y")], {
      from: "$$x",
      to: "y",
    }),
    { added: [], removed: [], unchanged: 1 },
  );
  // Renaming a parameter to `name` leaves an error about a property `name` as it was.
  const property = error(2, 5, 9, "Property 'name' does not exist on type 'Foo'.");
  assert.deepEqual(
    same(["f(label) {\nobj.name;\n", property], ["f(name) {\nobj.name;\n", property], {
      from: "label",
      to: "name",
    }),
    { added: [], removed: [], unchanged: 1 },
  );
});
