import assert from "node:assert/strict";
import { locate, span, spanWithin } from "./locate.ts";

Deno.test("locate() counts columns in code points, after CJK and an emoji", () => {
  const text = 'import x;\nconst 名前 = "😀"; const y = greet(名前);\n';
  assert.deepEqual(locate(text, "greet"), { line: 2, column: 27 });
  assert.deepEqual(locate(text, "名前", 2), { line: 2, column: 33 });
});

Deno.test("locate() throws when the nth occurrence is missing", () => {
  assert.throws(() => locate("a a", "a", 3), /occurrence 3/);
});

Deno.test("span() and spanWithin() end one past the last code point", () => {
  const text = "export function greet(name) {}\ngreet(1);\n";
  assert.deepEqual(span(text, "greet", 2), { line: 2, column: 1, endLine: 2, endColumn: 6 });
  assert.deepEqual(spanWithin(text, "function greet(", "greet"), {
    line: 1,
    column: 17,
    endLine: 1,
    endColumn: 22,
  });
});
