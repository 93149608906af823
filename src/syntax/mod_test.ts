import assert from "node:assert/strict";
import { compileQuery } from "./loader.ts";
import {
  analyzeSyntax,
  checkNewName,
  findSymbol,
  SYNTAX_LANGUAGES,
  syntaxLanguageOf,
} from "./mod.ts";
import { OUTLINE_QUERIES } from "./queries/mod.ts";

const names = (symbols: { kind: string; name: string; container?: string }[]) =>
  symbols.map((s) => `${s.kind} ${s.container ? `${s.container}.` : ""}${s.name}`);

Deno.test("every grammar loads and its outline query compiles", async () => {
  for (const language of SYNTAX_LANGUAGES) {
    await compileQuery(language, OUTLINE_QUERIES[language]);
  }
});

Deno.test("syntaxLanguageOf() goes by whole name, then extension", () => {
  assert.equal(syntaxLanguageOf("src/a.TS"), "typescript");
  assert.equal(syntaxLanguageOf("src/page.tsx"), "tsx");
  assert.equal(syntaxLanguageOf("Rakefile"), "ruby");
  assert.equal(syntaxLanguageOf("lib/x.hpp"), "cpp");
  assert.equal(syntaxLanguageOf("notes.txt"), undefined);
});

Deno.test("analyzeSyntax() counts columns in code points after CJK and an emoji", async () => {
  const text = 'const 名前 = "😀"; function greet() {}\nfunction broken( {\n';
  const { symbols, errors } = await analyzeSyntax("typescript", text);
  const greet = symbols.find((s) => s.name === "greet")!;
  assert.equal(greet.line, 1);
  assert.equal(greet.column, [...'const 名前 = "😀"; function '].length + 1);
  assert.equal(symbols.find((s) => s.name === "名前")?.column, 7);
  assert.equal(errors.length > 0, true);
  assert.equal(errors[0].line, 2);
});

Deno.test("a Python outline keeps nesting, files self.x under the class, leaves locals out", async () => {
  const text = [
    "LIMIT = 3",
    "class Greeter:",
    "    label = 'g'",
    "    def __init__(self, prefix):",
    "        self.prefix = prefix",
    "        local = 1",
    "def greet(name):",
    "    inner = name",
    "    return inner",
  ].join("\n");
  const { symbols, errors } = await analyzeSyntax("python", text);
  assert.deepEqual(errors, []);
  assert.deepEqual(names(symbols), [
    "constant LIMIT",
    "class Greeter",
    "variable Greeter.label",
    "method Greeter.__init__",
    "variable Greeter.prefix",
    "function greet",
  ]);
  assert.deepEqual(
    symbols.map((s) => [s.name, s.line, s.endLine]),
    [["LIMIT", 1, 1], ["Greeter", 2, 6], ["label", 3, 3], ["__init__", 4, 6], ["prefix", 5, 5], [
      "greet",
      7,
      9,
    ]],
  );
});

Deno.test("a Go method is filed under its receiver type, not under what precedes it", async () => {
  const text = "package p\ntype T struct{ A int }\nfunc New() *T { return nil }\n" +
    "func (t *T) Get() int { return t.A }\n";
  const { symbols } = await analyzeSyntax("go", text);
  assert.deepEqual(names(symbols), ["struct T", "field T.A", "function New", "method T.Get"]);
  assert.equal(symbols.find((s) => s.name === "Get")?.depth, 0);
});

Deno.test("findSymbol() resolves dotted queries by their container", async () => {
  const text = "class A:\n    def run(self): pass\nclass B:\n    def run(self): pass\n";
  const { symbols } = await analyzeSyntax("python", text);
  assert.equal(findSymbol(symbols, "B.run")?.line, 4);
  assert.equal(findSymbol(symbols, "run")?.line, 2);
  assert.equal(findSymbol(symbols, "C.run"), undefined);
});

Deno.test("a MISSING token and an ERROR are both reported, where the parser lost track", async () => {
  const missing = await analyzeSyntax("c", "int f(void) {\n  return 1\n}\n");
  assert.deepEqual(
    missing.errors.map((e) => [e.line, e.message]),
    [[2, "missing `;`"]],
  );
  const python = "def ok():\n    pass\n\ndef broken(a\n    return a\n";
  const { errors } = await analyzeSyntax("python", python);
  assert.equal(errors.length >= 1, true);
  assert.ok(errors[0].line >= 4, JSON.stringify(errors));
});

Deno.test("checkNewName() accepts a name and refuses keywords and non-names, per grammar", async () => {
  const ts = "let count = 1;\nconst o = { count };\no.count = 2;\n";
  assert.equal(await checkNewName("typescript", ts, { line: 1, column: 5 }, "total"), undefined);
  assert.match(
    (await checkNewName("typescript", ts, { line: 1, column: 5 }, "class")) ?? "",
    /`class` is a reserved word in TypeScript: line 1 would read `let class = 1;`/,
  );
  assert.match(
    (await checkNewName("typescript", ts, { line: 1, column: 5 }, "two words")) ?? "",
    /not a single name/,
  );
  // A property may be named by a reserved word.
  assert.equal(await checkNewName("typescript", ts, { line: 3, column: 3 }, "delete"), undefined);
  const py = "def greet(name):\n    return name\n";
  assert.equal(await checkNewName("python", py, { line: 1, column: 5 }, "salute"), undefined);
  assert.match((await checkNewName("python", py, { line: 1, column: 5 }, "def")) ?? "", /Python/);
  assert.match((await checkNewName("python", py, { line: 1, column: 5 }, "9lives")) ?? "", /./);
  // Not on a name: the server decides.
  assert.equal(await checkNewName("python", py, { line: 1, column: 4 }, "x y"), undefined);
});

Deno.test("the WebAssembly files come from the package versions deno.json imports", async () => {
  const { WASM_FILES } = await import("./loader.ts");
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  for (const file of Object.values(WASM_FILES)) {
    const [, name, version] = /^npm:((?:@[^/]+\/)?[^@/]+)@([^/]+)\//.exec(file)!;
    assert.equal(config.imports[name], `npm:${name}@${version}`, file);
  }
});

Deno.test("grammar_sources.ts imports every WebAssembly file, so the README's deno cache of it fetches them", async () => {
  const { WASM_FILES } = await import("./loader.ts");
  const text = await Deno.readTextFile(new URL("./grammar_sources.ts", import.meta.url));
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  // A bare name as deno.json's imports map it: `tree-sitter-go/x.wasm` → npm:tree-sitter-go@v/x.wasm.
  const imported = [...text.matchAll(/^import source \w+ from "((?:@[^/]+\/)?[^/]+)\/([^"]+)";$/gm)]
    .map((m) => `${config.imports[m[1]]}/${m[2]}`);
  assert.deepEqual(imported.sort(), Object.values(WASM_FILES).sort());
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const lines = readme.split("\n");
  const install = lines.findIndex((line) => line.startsWith("deno install -g "));
  // The line after the install: the cache of this file.
  assert.match(
    lines[install + 1],
    /^deno cache --config \S+\/deno\.json \S+\/src\/syntax\/grammar_sources\.ts$/,
  );
});

Deno.test("positions on one long minified line are exact, counted once along the line", async () => {
  const keys = Array.from({ length: 2000 }, (_, i) => `"k😀${i}": ${i}`);
  const text = `{${keys.join(", ")}}`;
  const { symbols } = await analyzeSyntax("json", text);
  assert.equal(symbols.length, 2000);
  const last = symbols[symbols.length - 1];
  assert.equal(last.name, "k😀1999");
  assert.equal(last.column, [...text.slice(0, text.lastIndexOf('"k😀1999"') + 1)].length + 1);
});
