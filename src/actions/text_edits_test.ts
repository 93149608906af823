import assert from "node:assert/strict";
import { LspGateError } from "../errors.ts";
import { applyAgentEdits } from "./text_edits.ts";

const edit = (
  line: number,
  column: number,
  endLine: number,
  endColumn: number,
  newText: string,
) => ({
  line,
  column,
  endLine,
  endColumn,
  newText,
});

Deno.test("applyAgentEdits() counts columns in code points, after CJK and an emoji", () => {
  const text = "const 名前 = 1; // 😀 x\nnext\n";
  // `x` is column 20: c-o-n-s-t, space, 名, 前, space, =, space, 1, ;, space, /, /, space, 😀, space.
  assert.equal(applyAgentEdits(text, [edit(1, 20, 1, 21, "y")]), "const 名前 = 1; // 😀 y\nnext\n");
  assert.equal(
    applyAgentEdits(text, [edit(1, 7, 1, 9, "name")]),
    "const name = 1; // 😀 x\nnext\n",
  );
});

Deno.test("applyAgentEdits() takes every range against the text as it is", () => {
  const text = "a\nb\nc\n";
  assert.equal(
    applyAgentEdits(text, [edit(3, 1, 3, 2, "C"), edit(1, 1, 1, 2, "A\nA2")]),
    "A\nA2\nb\nC\n",
  );
  // An insertion at the end of a line, and one at the very end of the file (the empty last line).
  assert.equal(
    applyAgentEdits(text, [edit(2, 2, 2, 2, "!"), edit(4, 1, 4, 1, "d\n")]),
    "a\nb!\nc\nd\n",
  );
  // A range across a line break joins the lines.
  assert.equal(applyAgentEdits(text, [edit(1, 2, 2, 1, "")]), "ab\nc\n");
});

Deno.test("applyAgentEdits() refuses ranges outside the file, backwards or overlapping", () => {
  const text = "abc\ndef\n";
  const refuses = (edits: ReturnType<typeof edit>[], pattern: RegExp) =>
    assert.throws(
      () => applyAgentEdits(text, edits),
      (error: unknown) =>
        error instanceof LspGateError && error.code === "INVALID_INPUT" &&
        pattern.test(error.message),
    );
  refuses([edit(4, 1, 4, 1, "x")], /line 4 is past the end of the file \(3 lines\)/);
  refuses([edit(1, 5, 1, 5, "x")], /column 5 is past the end of line 1/);
  refuses([edit(2, 3, 2, 1, "x")], /ends \(2:1\) before it starts \(2:3\)/);
  refuses([edit(1, 1, 1, 3, "x"), edit(1, 2, 1, 4, "y")], /edits\[0\] and edits\[1\] overlap/);
});
