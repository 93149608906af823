// findSymbolColumn() with a language's lexing: block comments, strings inside interpolations, and
// sigils that are part of a name, dotted names (the prober's finds 10, 11 and 12).
import assert from "node:assert/strict";
import { findSymbolColumn, lexingOf, symbolOccurrences } from "./symbol_columns.ts";

const ts = lexingOf("src/a.ts");
const python = lexingOf("m.py");

Deno.test("findSymbolColumn() skips a name inside a /* … */ comment where the language has one", () => {
  const line = 'export const r = greet("a") + /* greet */ greet("b");';
  assert.equal(findSymbolColumn(line, "greet#2", ts), 43);
  assert.equal(findSymbolColumn(line, "greet#3", ts), undefined);
  assert.equal(findSymbolColumn("f(/* x */ x, y /* y", "x", lexingOf("a.go")), 11);
  // A comment left open goes on past the line: what follows it is no code.
  assert.equal(findSymbolColumn("y(/* x", "x", lexingOf("a.c")), 6);
  assert.equal(findSymbolColumn("a /* b */ b", "b", lexingOf("s.css")), 11);
  // Python and Zig have no block comments; `/*` inside a string is text.
  assert.equal(findSymbolColumn("a = b /* b */", "b#2", python), 10);
  assert.equal(findSymbolColumn("const b = 1; // /* b", "b#2", lexingOf("a.zig")), undefined);
  assert.equal(findSymbolColumn('glob("src/**/*.ts", ts)', "ts", ts), 21);
  // An escaped slash is a regular expression's, no comment's.
  assert.equal(findSymbolColumn('p = p.replace(/\\/*$/, "") + p', "p#3", ts), 29);
  assert.equal(findSymbolColumn("p.split(/\\//).concat(p)", "p#2", ts), 22);
});

Deno.test("findSymbolColumn() skips a string inside an f-string's or a template's braces", () => {
  const fstring = `msg = f"{names['greet']}" + greet("x")`;
  assert.equal(findSymbolColumn(fstring, "greet", python), 29);
  assert.equal(findSymbolColumn(fstring, "names", python), 10);
  const template = 'const s = `${obj["greet"]}` + greet("x");';
  assert.equal(findSymbolColumn(template, "greet", ts), 31);
  // Interpolations nest: a template inside one holds code in its own `${…}`.
  assert.equal(findSymbolColumn("`${a(`${'x'} ${x}`)}`", "x", ts), 16);
  assert.equal(findSymbolColumn('f"{x:{width}}" + "width"', "width", python), 7);
  assert.equal(findSymbolColumn('f"{ {"k": k}["k"] }"', "k", python), 11);
  // A line whose quotes do not close still takes its words as they come.
  assert.equal(findSymbolColumn(`f"{names['greet]}" + greet`, "greet", python), 11);
});

Deno.test("findSymbolColumn() counts JavaScript's #name and Ruby's @name as names of their own", () => {
  const line = "resize(size: number) { this.#size = size; return this.#size; }";
  assert.equal(findSymbolColumn(line, "size#2", ts), 37);
  assert.equal(findSymbolColumn(line, "#size#2", ts), 55);
  assert.equal(findSymbolColumn("this.#size = 1", "size", ts), 7);
  const ruby = lexingOf("a.rb");
  assert.equal(findSymbolColumn("@size = size; @@size = size", "size", ruby), 9);
  assert.equal(findSymbolColumn("@size = size; @@size = size", "@size#2", ruby), undefined);
  // Elsewhere `#` and `@` are no part of a name.
  assert.equal(findSymbolColumn("@size size", "size", python), 2);
});

Deno.test("symbolOccurrences() reads a 40,000-occurrence line in one pass", () => {
  const line = `x = ${"f(f, '{f}') /* f */ + ".repeat(40_000)}0`;
  const started = performance.now();
  assert.equal(symbolOccurrences(line, "f", ts).length, 80_000);
  assert.equal(symbolOccurrences(line, "f", python).length, 120_000);
  assert.ok(performance.now() - started < 5_000, `${performance.now() - started} ms`);
});

Deno.test("findSymbolColumn() puts a dotted name on its last part", () => {
  const python = lexingOf("m.py");
  const line = "usage = self.command.get_usage() + self.get_usage()";
  assert.equal(findSymbolColumn(line, "self.command.get_usage", python), 22);
  assert.equal(findSymbolColumn(line, "self.get_usage", python), 41);
  assert.equal(findSymbolColumn(line, "self.get_usage#2", python), undefined);
  assert.equal(findSymbolColumn(line, "command.usage", python), undefined);
  assert.equal(
    findSymbolColumn("std::mem::swap(&mut a, &mut b)", "mem::swap", lexingOf("a.rs")),
    11,
  );
  assert.equal(findSymbolColumn("$this->name = $name;", "$this->name", lexingOf("a.php")), 8);
  // No name before the dot: the text as written.
  assert.equal(findSymbolColumn("f(...args)", "...args", ts), 3);
});
