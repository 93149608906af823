import assert from "node:assert/strict";
import { LspGateError } from "../errors.ts";
import {
  type AgentPosition,
  applyEdits,
  columnOfUtf16,
  describeEncoding,
  fromServerCharacter,
  fromServerPosition,
  fromServerRange,
  negotiatedEncoding,
  type PositionEncoding,
  type ServerPosition,
  type ServerTextEdit,
  toServerCharacter,
  toServerPosition,
  TSSERVER_UTF16,
  utf16OfColumn,
} from "./positions.ts";
import { TextLines } from "./text_lines.ts";
import { findSymbolColumn, lexingOf } from "./symbol_columns.ts";

const ENCODINGS: PositionEncoding[] = ["utf-8", "utf-16", "utf-32"];
const E_ACUTE = "e\u0301"; // é as e + combining acute: two code points
const TECHNOLOGIST = "👩\u200d💻"; // ZWJ sequence: three code points
const TRICKY = `\t${E_ACUTE}😀${TECHNOLOGIST}名 x`;

function edit(
  startLine: number,
  startChar: number,
  endLine: number,
  endChar: number,
  newText: string,
): ServerTextEdit {
  return {
    range: {
      start: { line: startLine, character: startChar },
      end: { line: endLine, character: endChar },
    },
    newText,
  };
}

Deno.test("negotiatedEncoding() defaults to utf-16 when absent or unknown", () => {
  assert.equal(negotiatedEncoding(undefined), "utf-16");
  assert.equal(negotiatedEncoding("utf-7"), "utf-16");
  assert.equal(negotiatedEncoding(8), "utf-16");
  assert.equal(negotiatedEncoding("utf-8"), "utf-8");
  assert.equal(negotiatedEncoding("utf-32"), "utf-32");
});

Deno.test("toServerCharacter() counts a CJK character as one UTF-16 unit and three UTF-8 bytes", () => {
  const line = "const 名前 = 1";
  assert.equal(toServerCharacter(line, 10, "utf-16"), 9);
  assert.equal(toServerCharacter(line, 10, "utf-32"), 9);
  assert.equal(toServerCharacter(line, 10, "utf-8"), 13);
});

Deno.test("toServerCharacter() counts an emoji as two UTF-16 units", () => {
  assert.equal(toServerCharacter("😀x", 2, "utf-16"), 2);
  assert.equal(toServerCharacter("😀x", 2, "utf-8"), 4);
  assert.equal(toServerCharacter("😀x", 2, "utf-32"), 1);
});

Deno.test("toServerCharacter() counts a combining mark as its own column", () => {
  const line = `${E_ACUTE}x`;
  assert.equal(toServerCharacter(line, 3, "utf-16"), 2);
  assert.equal(toServerCharacter(line, 3, "utf-8"), 3);
  assert.equal(toServerCharacter(line, 3, "utf-32"), 2);
});

Deno.test("toServerCharacter() counts each code point of a ZWJ sequence", () => {
  const line = `${TECHNOLOGIST}x`;
  assert.equal(toServerCharacter(line, 4, "utf-16"), 5);
  assert.equal(toServerCharacter(line, 4, "utf-8"), 11);
  assert.equal(toServerCharacter(line, 4, "utf-32"), 3);
});

Deno.test("toServerCharacter() counts a tab as one column", () => {
  for (const encoding of ENCODINGS) {
    assert.equal(toServerCharacter("\t\tx", 3, encoding), 2);
  }
});

Deno.test("toServerCharacter() clamps a column past the end to the line end", () => {
  assert.equal(toServerCharacter("a😀", 3, "utf-16"), 3);
  assert.equal(toServerCharacter("a😀", 99, "utf-16"), 3);
  assert.equal(toServerCharacter("a😀", 99, "utf-8"), 5);
  assert.equal(toServerCharacter("", 1, "utf-16"), 0);
  assert.equal(toServerCharacter("", 4, "utf-8"), 0);
});

Deno.test("toServerCharacter() rejects a column below 1", () => {
  assert.throws(() => toServerCharacter("abc", 0, "utf-16"), RangeError);
  assert.throws(() => toServerCharacter("abc", 1.5, "utf-16"), RangeError);
});

Deno.test("fromServerCharacter() rounds a character between UTF-16 surrogates to the emoji's start", () => {
  assert.equal(fromServerCharacter("a😀b", 2, "utf-16"), 2);
  assert.equal(fromServerCharacter("a😀b", 3, "utf-16"), 3);
});

Deno.test("fromServerCharacter() rounds a character inside a UTF-8 sequence to its start", () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((c) => fromServerCharacter("😀x", c, "utf-8")),
    [1, 1, 1, 1, 2, 3],
  );
  assert.equal(fromServerCharacter("名前", 4, "utf-8"), 2);
});

Deno.test("fromServerCharacter() clamps past the end to the line end plus one", () => {
  assert.equal(fromServerCharacter("a😀", 99, "utf-16"), 3);
  assert.equal(fromServerCharacter("a😀", 99, "utf-8"), 3);
  assert.equal(fromServerCharacter("", 5, "utf-32"), 1);
});

Deno.test("fromServerCharacter() treats a negative character as the line start", () => {
  assert.equal(fromServerCharacter("abc", -1, "utf-16"), 1);
});

Deno.test("toServerCharacter() and fromServerCharacter() round-trip every column in all encodings", () => {
  const columns = [...TRICKY].length + 1;
  for (const encoding of ENCODINGS) {
    for (let column = 1; column <= columns; column++) {
      const character = toServerCharacter(TRICKY, column, encoding);
      assert.equal(
        fromServerCharacter(TRICKY, character, encoding),
        column,
        `${encoding} column ${column}`,
      );
    }
  }
});

Deno.test("toServerCharacter() lands on x after a tricky prefix in each encoding", () => {
  const column = [...TRICKY].indexOf("x") + 1;
  assert.equal(column, 10);
  assert.equal(toServerCharacter(TRICKY, column, "utf-32"), 9);
  assert.equal(toServerCharacter(TRICKY, column, "utf-16"), 12);
  assert.equal(
    toServerCharacter(TRICKY, column, "utf-8"),
    1 + 3 + 4 + 11 + 3 + 1,
  );
});

Deno.test("toServerPosition() turns 1-based lines into 0-based across \\r\\n and \\r", () => {
  const lines = new TextLines("a\r\n😀b\rc名d");
  assert.deepEqual(
    toServerPosition(lines, { line: 2, column: 2 }, "utf-16"),
    { line: 1, character: 2 },
  );
  assert.deepEqual(
    toServerPosition(lines, { line: 3, column: 3 }, "utf-8"),
    { line: 2, character: 4 },
  );
});

Deno.test("toServerPosition() puts any column of a line past the end at character 0", () => {
  const lines = new TextLines("a\n");
  assert.deepEqual(
    toServerPosition(lines, { line: 9, column: 4 }, "utf-16"),
    { line: 8, character: 0 },
  );
});

Deno.test("toServerPosition() rejects a line below 1", () => {
  const lines = new TextLines("a");
  assert.throws(
    () => toServerPosition(lines, { line: 0, column: 1 }, "utf-16"),
    RangeError,
  );
});

Deno.test("fromServerPosition() turns 0-based positions into 1-based code point columns", () => {
  const lines = new TextLines("a\n😀b");
  assert.deepEqual(
    fromServerPosition(lines, { line: 1, character: 2 }, "utf-16"),
    { line: 2, column: 2 },
  );
  assert.deepEqual(
    fromServerPosition(lines, { line: 1, character: 4 }, "utf-8"),
    { line: 2, column: 2 },
  );
});

Deno.test("toServerPosition() and fromServerPosition() round-trip in all encodings", () => {
  const lines = new TextLines(`x\r\n${TRICKY}\r\ry`);
  const columns = [...TRICKY].length + 1;
  for (const encoding of ENCODINGS) {
    for (let column = 1; column <= columns; column++) {
      const pos = { line: 2, column };
      const server = toServerPosition(lines, pos, encoding);
      assert.deepEqual(fromServerPosition(lines, server, encoding), pos);
    }
  }
});

Deno.test("fromServerRange() converts both ends of a range", () => {
  const lines = new TextLines("const 名前 = 1;\nfoo😀bar");
  const range = {
    start: { line: 0, character: 6 },
    end: { line: 1, character: 5 },
  };
  assert.deepEqual(fromServerRange(lines, range, "utf-16"), {
    line: 1,
    column: 7,
    endLine: 2,
    endColumn: 5,
  });
  const utf8 = {
    start: { line: 0, character: 9 },
    end: { line: 1, character: 7 },
  };
  assert.deepEqual(fromServerRange(lines, utf8, "utf-8"), {
    line: 1,
    column: 8,
    endLine: 2,
    endColumn: 5,
  });
});

Deno.test("findSymbolColumn() finds the Nth whole-word match after CJK and emoji", () => {
  const line = "const 名前 = 1; const foo😀 = foo;";
  assert.equal(findSymbolColumn(line, "foo"), 21);
  assert.equal(findSymbolColumn(line, "foo#1"), 21);
  assert.equal(findSymbolColumn(line, "foo#2"), 28);
  assert.equal(findSymbolColumn(line, "foo#3"), undefined);
  assert.equal(findSymbolColumn(line, "名前"), 7);
});

Deno.test("findSymbolColumn() prefers a whole word over an earlier substring", () => {
  assert.equal(findSymbolColumn("food = foo", "foo"), 8);
  assert.equal(findSymbolColumn("food = foo", "foo#2"), undefined);
});

Deno.test("findSymbolColumn() falls back to substrings when no whole word matches", () => {
  assert.equal(findSymbolColumn("food = fool", "foo"), 1);
  assert.equal(findSymbolColumn("food = fool", "foo#2"), 8);
});

Deno.test("findSymbolColumn() finds a symbol after an emoji on the same line", () => {
  assert.equal(findSymbolColumn("😀 x = 1", "x"), 3);
  assert.equal(findSymbolColumn("let s = '😀😀'; s.length", "s#2"), 15);
});

Deno.test("findSymbolColumn() treats $ and combining marks as word characters", () => {
  assert.equal(findSymbolColumn("$foo = foo", "foo"), 8);
  assert.equal(findSymbolColumn(`caf${E_ACUTE} = cafe`, "cafe"), 9);
});

Deno.test("findSymbolColumn() keeps a # that is not a trailing occurrence suffix", () => {
  assert.equal(findSymbolColumn("#include <stdio.h>", "#include"), 1);
  assert.equal(findSymbolColumn("this.#x = x", "#x"), 6);
  assert.equal(findSymbolColumn("this.#x = #x", "#x#2"), 11);
  assert.equal(findSymbolColumn("a#2 + a", "a#2#1"), 1);
  assert.equal(findSymbolColumn("a#2 + a", "a#2"), 7);
});

Deno.test("findSymbolColumn() returns undefined when the symbol is not there", () => {
  assert.equal(findSymbolColumn("const x = 1", "y"), undefined);
  assert.equal(findSymbolColumn("const x = 1", ""), undefined);
  assert.equal(findSymbolColumn("const x = 1", "x#0"), undefined);
  assert.equal(findSymbolColumn("", "x"), undefined);
});

Deno.test("applyEdits() applies several edits given in any order", () => {
  const text = "let a = 1;\nlet b = a;\n";
  const edits = [edit(1, 8, 1, 9, "alpha"), edit(0, 4, 0, 5, "alpha")];
  assert.equal(
    applyEdits(text, edits, "utf-16"),
    "let alpha = 1;\nlet b = alpha;\n",
  );
});

Deno.test("applyEdits() keeps the array order of insertions at the same point", () => {
  const edits = [edit(0, 1, 0, 1, "a"), edit(0, 1, 0, 1, "b")];
  assert.equal(applyEdits("xy", edits, "utf-16"), "xaby");
});

Deno.test("applyEdits() puts an insertion before a replacement at the same point", () => {
  const edits = [edit(0, 0, 0, 1, "Y"), edit(0, 0, 0, 0, "a")];
  assert.equal(applyEdits("xz", edits, "utf-16"), "aYz");
});

Deno.test("applyEdits() reads positions as UTF-8 bytes when negotiated", () => {
  const text = "😀foo😀bar";
  assert.equal(
    applyEdits(text, [edit(0, 4, 0, 7, "X")], "utf-8"),
    "😀X😀bar",
  );
  assert.equal(
    applyEdits(text, [edit(0, 2, 0, 5, "X")], "utf-16"),
    "😀X😀bar",
  );
  assert.equal(
    applyEdits(text, [edit(0, 1, 0, 4, "X")], "utf-32"),
    "😀X😀bar",
  );
});

Deno.test("applyEdits() spans lines across \\r\\n endings", () => {
  assert.equal(
    applyEdits("a\r\nb\r\nc", [edit(0, 1, 2, 0, "-")], "utf-16"),
    "a-c",
  );
});

Deno.test("applyEdits() clamps a character past the line end before the terminator", () => {
  assert.equal(
    applyEdits("ab\ncd", [edit(0, 1, 0, 99, "X")], "utf-16"),
    "aX\ncd",
  );
});

Deno.test("applyEdits() appends at a line past the end of the document", () => {
  assert.equal(
    applyEdits("a\n", [edit(5, 0, 5, 0, "b\n")], "utf-16"),
    "a\nb\n",
  );
});

Deno.test("applyEdits() throws EDIT_CONFLICT on overlapping edits", () => {
  const edits = [edit(0, 0, 0, 3, "x"), edit(0, 2, 0, 4, "y")];
  assert.throws(
    () => applyEdits("abcdef", edits, "utf-16"),
    (error: unknown) => error instanceof LspGateError && error.code === "EDIT_CONFLICT",
  );
});

Deno.test("applyEdits() returns the text unchanged for no edits", () => {
  assert.equal(applyEdits("abc", [], "utf-8"), "abc");
});

Deno.test("findSymbolColumn() prefers the name in code to the name in a string or a comment", () => {
  const python = lexingOf("pkg/a.py");
  const ts = lexingOf("src/a.ts");
  // The string comes first on the line; the code is asked about.
  assert.equal(findSymbolColumn('print("compute", compute(1))', "compute", python), 18);
  assert.equal(findSymbolColumn('console.log("runAll", runAll(1));', "runAll", ts), 23);
  assert.equal(findSymbolColumn("log('a \\' x', x)", "x", ts), 15);
  // An f-string's or a template's braces hold code; their text does not.
  assert.equal(findSymbolColumn('f"total={total}"', "total", python), 10);
  assert.equal(findSymbolColumn("`total=${total}`", "total", ts), 10);
  assert.equal(findSymbolColumn('x = "{total}" + total', "total", python), 17);
  // Comments: # in Python, // in TypeScript; `#N` counts the code occurrences.
  assert.equal(findSymbolColumn("n = 1  # n is the count", "n#1", python), 1);
  assert.equal(findSymbolColumn("a(n) // n, n", "n#2", ts), undefined);
  assert.equal(findSymbolColumn("a = b // b", "b#2", python), 10);
  // Rust's lifetimes are no quotes.
  assert.equal(findSymbolColumn("fn f<'a>(x: &'a Bar) -> Bar", "Bar#2", lexingOf("a.rs")), 25);
  // Only in a string: the string, as before.
  assert.equal(findSymbolColumn('getattr(obj, "compute")', "compute", python), 15);
  // A line whose quotes do not close was misread: its words are taken as they come (a regular
  // expression's quote, Rust's '"').
  const regex = 'if (/"/.test(text)) return quote(text.slice(1), "text");';
  assert.equal(findSymbolColumn(regex, "text", ts), 14);
  const chars = `'"' => { quotes += 1; println!("quotes") }`;
  assert.equal(findSymbolColumn(chars, "quotes", lexingOf("a.rs")), 10);
});

Deno.test("a long line's positions convert through its index as a short line's do, in every encoding", () => {
  // Long enough to be indexed (2,000 UTF-16 units and more), with astral and CJK characters.
  const unit = "const a😀 = '名前'; ";
  const line = unit.repeat(200);
  const short = unit.repeat(3);
  const codePoints = [...line].length;
  for (const encoding of ["utf-8", "utf-16", "utf-32"] as PositionEncoding[]) {
    // The same offsets inside the first units, however long the line.
    for (let column = 1; column <= [...short].length + 1; column++) {
      const character = toServerCharacter(short, column, encoding);
      assert.equal(toServerCharacter(line, column, encoding), character);
      assert.equal(fromServerCharacter(line, character, encoding), column);
    }
    // Round trips all along, a character's inside rounding to its start, the end clamped.
    for (let column = 1; column <= codePoints + 1; column += 37) {
      const character = toServerCharacter(line, column, encoding);
      assert.equal(fromServerCharacter(line, character, encoding), column);
    }
    const end = toServerCharacter(line, codePoints + 1, encoding);
    assert.equal(toServerCharacter(line, codePoints + 50, encoding), end);
    assert.equal(fromServerCharacter(line, end + 10, encoding), codePoints + 1);
  }
  const emoji = line.indexOf("😀", 1000);
  assert.equal(columnOfUtf16(line, emoji + 1), columnOfUtf16(line, emoji));
  assert.equal(utf16OfColumn(line, columnOfUtf16(line, emoji)), emoji);
});

/** Each agent position converts to its server position, and back. */
function assertConverts(
  lines: TextLines,
  encoding: PositionEncoding,
  places: [AgentPosition, ServerPosition][],
): void {
  for (const [agent, server] of places) {
    assert.deepEqual(toServerPosition(lines, agent, encoding), server);
    assert.deepEqual(fromServerPosition(lines, server, encoding), agent);
  }
}

Deno.test("ECMAScript lines (tsserver's): positions after a U+2028 or U+2029 convert both ways and edits land on them", () => {
  // LSP's lines: 0 `const s = "a<LS>b"; const t = 1;`, 1 `t;`. tsserver's: a line ends at the LS.
  const text = 'const s = "a\u2028b"; const t = 1;\nt;\u2029x🙂y\n';
  const lines = new TextLines(text);
  assert.equal(lines.lineCount, 3);
  assert.equal(lines.line(0)[23], "t");
  // Agent positions and tsserver's for the same places, converted both ways.
  const places: [AgentPosition, ServerPosition][] = [
    // `t` declared after the LS: LSP line 0, column 24; tsserver's line 1, character 10.
    [{ line: 1, column: 24 }, { line: 1, character: 10 }],
    // Before the separator, the same as LSP's.
    [{ line: 1, column: 7 }, { line: 0, character: 6 }],
    // The next LSP line is tsserver's third, and after its U+2029 its fourth, in UTF-16 units.
    [{ line: 2, column: 1 }, { line: 2, character: 0 }],
    [{ line: 2, column: 6 }, { line: 3, character: 3 }],
  ];
  assertConverts(lines, TSSERVER_UTF16, places);
  assert.deepEqual(
    fromServerRange(lines, {
      start: { line: 1, character: 10 },
      end: { line: 1, character: 11 },
    }, TSSERVER_UTF16),
    { line: 1, column: 24, endLine: 1, endColumn: 25 },
  );
  // A rename of t as tsserver gives it: every edit where the name is.
  const renamed = applyEdits(text, [
    { range: { start: { line: 1, character: 10 }, end: { line: 1, character: 11 } }, newText: "u" },
    { range: { start: { line: 2, character: 0 }, end: { line: 2, character: 1 } }, newText: "u" },
  ], TSSERVER_UTF16);
  assert.equal(renamed, 'const s = "a\u2028b"; const u = 1;\nu;\u2029x🙂y\n');
  // Text without a separator: positions are LSP's, as for UTF-16.
  const plain = new TextLines("a\nbc\n");
  assert.deepEqual(toServerPosition(plain, { line: 2, column: 2 }, TSSERVER_UTF16), {
    line: 1,
    character: 1,
  });
});

Deno.test("tsserver's positions in a file with a BOM (which it does not have): its first line a unit short", () => {
  const text = "\uFEFFexport function greet() {}\ngreet();\n";
  const lines = new TextLines(text);
  assertConverts(lines, TSSERVER_UTF16, [
    // greet at column 18 counting the BOM; tsserver's character 16.
    [{ line: 1, column: 18 }, { line: 0, character: 16 }],
    // Later lines are not moved.
    [{ line: 2, column: 1 }, { line: 1, character: 0 }],
  ]);
  const renamed = applyEdits(text, [
    {
      range: { start: { line: 0, character: 16 }, end: { line: 0, character: 21 } },
      newText: "hi",
    },
    { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 5 } }, newText: "hi" },
  ], TSSERVER_UTF16);
  assert.equal(renamed, "\uFEFFexport function hi() {}\nhi();\n");
});

Deno.test("a server without the BOM counting UTF-8 (TypeScript 7's): its first line three bytes short, LSP's lines kept", () => {
  const text = "\uFEFFconst é = 1; export function greet() {}\u2028x\ngreet();\n";
  const lines = new TextLines(text);
  const encoding = "utf-8, without the BOM" as const;
  // greet at column 31 counting the BOM; the server's byte 30 (é is two bytes).
  assert.equal([...lines.line(0)].indexOf("g") + 1, 31);
  assertConverts(lines, encoding, [
    [{ line: 1, column: 31 }, { line: 0, character: 30 }],
    // The U+2028 ends no line here: the next line is the server's second.
    [{ line: 2, column: 1 }, { line: 1, character: 0 }],
  ]);
  assert.equal(
    applyEdits(text, [
      {
        range: { start: { line: 0, character: 30 }, end: { line: 0, character: 35 } },
        newText: "hi",
      },
    ], encoding),
    "\uFEFFconst é = 1; export function hi() {}\u2028x\ngreet();\n",
  );
  assert.deepEqual(describeEncoding(encoding), { encoding: "utf-8" });
  assert.deepEqual(describeEncoding(TSSERVER_UTF16), { encoding: "utf-16", ecmascriptLines: true });
});
