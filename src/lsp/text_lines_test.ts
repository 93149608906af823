import assert from "node:assert/strict";
import { linesOf, TextLines, withoutBomOf } from "./text_lines.ts";

Deno.test("TextLines splits on \\n, \\r\\n and \\r alike", () => {
  const lines = new TextLines("a\nb\r\nc\rd");
  assert.equal(lines.lineCount, 4);
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => lines.line(i)),
    ["a", "b", "c", "d"],
  );
});

Deno.test("TextLines counts an empty last line after a final line break", () => {
  assert.equal(new TextLines("a\n").lineCount, 2);
  assert.equal(new TextLines("a\r\n").lineCount, 2);
  assert.equal(new TextLines("").lineCount, 1);
  assert.equal(new TextLines("a\n").line(1), "");
});

Deno.test("TextLines keeps empty lines between breaks", () => {
  const lines = new TextLines("a\n\n\r\n\rb");
  assert.equal(lines.lineCount, 5);
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((i) => lines.line(i)),
    ["a", "", "", "", "b"],
  );
});

Deno.test("line() returns an empty string out of range", () => {
  const lines = new TextLines("a\nb");
  assert.equal(lines.line(-1), "");
  assert.equal(lines.line(2), "");
  assert.equal(lines.line(0.5), "");
});

Deno.test("offsetAt() clamps the character to the line, not its terminator", () => {
  const lines = new TextLines("ab\r\ncd");
  assert.equal(lines.offsetAt(0, 1), 1);
  assert.equal(lines.offsetAt(0, 99), 2);
  assert.equal(lines.offsetAt(1, 0), 4);
  assert.equal(lines.offsetAt(1, -3), 4);
});

Deno.test("offsetAt() clamps lines to the document", () => {
  const lines = new TextLines("ab\ncd");
  assert.equal(lines.offsetAt(-1, 5), 0);
  assert.equal(lines.offsetAt(7, 0), 5);
});

Deno.test("positionAt() inverts offsetAt() across line endings", () => {
  const text = "x😀\r\n\ry\nz";
  const lines = new TextLines(text);
  for (let line = 0; line < lines.lineCount; line++) {
    for (let char = 0; char <= lines.line(line).length; char++) {
      const offset = lines.offsetAt(line, char);
      assert.deepEqual(lines.positionAt(offset), { line, character: char });
    }
  }
});

Deno.test("positionAt() puts an offset between \\r and \\n at the line end", () => {
  const lines = new TextLines("ab\r\ncd");
  assert.deepEqual(lines.positionAt(3), { line: 0, character: 2 });
  assert.deepEqual(lines.positionAt(99), { line: 1, character: 2 });
  assert.deepEqual(lines.positionAt(-1), { line: 0, character: 0 });
});

Deno.test("TextLines splits a text without \\r as it splits one with \\r\\n", () => {
  const plain = "one\n\ntwo\nthree\n";
  const crlf = plain.replaceAll("\n", "\r\n");
  const a = new TextLines(plain);
  const b = new TextLines(crlf);
  assert.equal(a.lineCount, 5);
  assert.equal(b.lineCount, 5);
  for (let i = 0; i < 5; i++) assert.equal(a.line(i), b.line(i));
  assert.deepEqual(a.positionAt(plain.indexOf("three") + 2), { line: 3, character: 2 });
  assert.equal(a.offsetAt(2, 99), plain.indexOf("two") + 3);
});

Deno.test("linesOf() splits a text once while it is recent, and its lines are that text's", () => {
  const text = "x\ny\n";
  const first = linesOf(text);
  assert.equal(linesOf(text), first);
  assert.equal(first.line(1), "y");
  const other = linesOf("x\nz\n");
  assert.notEqual(other, first);
  assert.equal(other.line(1), "z");
  // Pushed out by eight others, it is split again, the same way.
  for (let i = 0; i < 8; i++) linesOf(`text ${i}`);
  const again = linesOf(text);
  assert.notEqual(again, first);
  assert.equal(again.line(1), "y");
});

Deno.test("tsserver's text: lines end at U+2028 and U+2029 too, a leading BOM is not in it; a text with neither is lspgate's", () => {
  const lines = new TextLines("\uFEFFa\u2028b\r\nc\u2029\rd");
  assert.equal(lines.lineCount, 3);
  const server = withoutBomOf(lines, true)!;
  assert.equal(server.shift, 1);
  assert.deepEqual(
    Array.from({ length: server.lines.lineCount }, (_, i) => server.lines.line(i)),
    ["a", "b", "c", "", "d"],
  );
  // The start of LSP's second line is tsserver's third.
  assert.deepEqual(server.lines.positionAt(lines.offsetAt(1, 0) - server.shift), {
    line: 2,
    character: 0,
  });
  assert.equal(withoutBomOf(lines, true), server);
  assert.equal(withoutBomOf(new TextLines("a\nb"), true), undefined);
  assert.deepEqual(withoutBomOf(new TextLines("\uFEFFa\nb"), true)?.lines.line(0), "a");
  // LSP's lines (TypeScript 7's), without the BOM: a separator is no line's end.
  const lsp = withoutBomOf(new TextLines("\uFEFFa\u2028b\nc"), false)!;
  assert.deepEqual([lsp.lines.lineCount, lsp.lines.line(0), lsp.shift], [2, "a\u2028b", 1]);
  assert.equal(withoutBomOf(new TextLines("a\u2028b"), false), undefined);
});
