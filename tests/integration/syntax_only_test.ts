// Answers with no language server: started without any run permission (or with --no-servers),
// lspgate still gives each language's outline and parse errors from its WebAssembly parsers,
// says they are syntax-only and names the server that would answer; actions that need a server
// still fail, naming it. Where a server runs, the outline agrees with its document symbols, a
// rename's new name is checked against the grammar, and a server that cannot list symbols gets
// `query` positions from the syntax tree. Expected positions come from text matches.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ADAPTERS, defaultConfig, type Response, Session } from "../../mod.ts";
import { openSession, parseFlags } from "../../src/frontends/main.ts";
import { fakeAdapter } from "../fakes/fake_server.ts";
import { expectError, expectOk, harness, textOf } from "../helpers/session.ts";

const LSPGATE_DIR = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURE = fileURLToPath(new URL("../fixtures/syntax/", import.meta.url));

/** [kind, name, container, text of the line the name is on] */
type Expected = [string, string, string, string];

/** The outline of each fixture, as the syntax tree gives it. */
const OUTLINES: Record<string, Expected[]> = {
  "outline.ts": [
    ["constant", "LIMIT", "", "export const LIMIT"],
    ["variable", "counter", "", "let counter"],
    ["function", "greet", "", "export function greet"],
    ["class", "Greeter", "", "export class Greeter"],
    ["property", "count", "Greeter", "private count"],
    ["constructor", "constructor", "Greeter", "constructor(readonly"],
    ["property", "prefix", "Greeter", "constructor(readonly"],
    ["method", "hello", "Greeter", "hello(who"],
    ["interface", "Shape", "", "export interface Shape"],
    ["method", "area", "Shape", "area(): number"],
    ["property", "name", "Shape", "name: string;"],
    ["type_parameter", "Id", "", "export type Id"],
    ["enum", "Color", "", "export enum Color"],
    ["enum_member", "Red", "Color", "Red,"],
    ["enum_member", "Green", "Color", "Green = 2"],
    ["module", "Util", "", "export namespace Util"],
    ["function", "helper", "Util", "export function helper"],
    ["constant", "load", "", "export const load"],
  ],
  "outline.tsx": [
    ["type_parameter", "Props", "", "type Props"],
    ["property", "title", "Props", "type Props"],
    ["function", "Title", "", "export function Title"],
    ["class", "Page", "", "export class Page"],
    ["method", "render", "Page", "render()"],
  ],
  "outline.js": [
    ["constant", "DEFAULTS", "", "const DEFAULTS"],
    ["property", "retries", "DEFAULTS", "const DEFAULTS"],
    ["property", "verbose", "DEFAULTS", "const DEFAULTS"],
    ["function", "connect", "", "function connect"],
    ["class", "Client", "", "class Client"],
    ["property", "timeout", "Client", "timeout = 10"],
    ["method", "send", "Client", "send(message)"],
  ],
  "outline.py": [
    ["constant", "LIMIT", "", "LIMIT = 10"],
    ["variable", "counter", "", "counter = 0"],
    ["function", "greet", "", "def greet"],
    ["class", "Greeter", "", "class Greeter"],
    ["variable", "label", "Greeter", 'label = "g"'],
    ["method", "__init__", "Greeter", "def __init__"],
    ["variable", "prefix", "Greeter", "self.prefix = prefix"],
    ["method", "hello", "Greeter", "def hello"],
    ["class", "Inner", "Greeter", "class Inner"],
    ["function", "fetch", "", "async def fetch"],
  ],
  "outline.go": [
    ["constant", "Limit", "", "const Limit"],
    ["variable", "counter", "", "var counter"],
    ["struct", "Greeter", "", "type Greeter struct"],
    ["field", "Prefix", "Greeter", "Prefix string"],
    ["field", "count", "Greeter", "count  int"],
    ["interface", "Shape", "", "type Shape interface"],
    ["method", "Area", "Shape", "Area() float64"],
    ["function", "NewGreeter", "", "func NewGreeter"],
    ["method", "Hello", "Greeter", "func (g *Greeter) Hello"],
  ],
  "outline.rs": [
    ["constant", "LIMIT", "", "pub const LIMIT"],
    ["struct", "Greeter", "", "pub struct Greeter"],
    ["field", "prefix", "Greeter", "prefix: String"],
    ["field", "count", "Greeter", "count: u32"],
    ["enum", "Color", "", "pub enum Color"],
    ["enum_member", "Red", "Color", "Red,"],
    ["enum_member", "Green", "Color", "Green,"],
    ["interface", "Shape", "", "pub trait Shape"],
    ["method", "area", "Shape", "fn area"],
    ["method", "new", "Greeter", "pub fn new"],
    ["method", "hello", "Greeter", "pub fn hello"],
    ["method", "fmt", "Greeter", "fn fmt"],
    ["module", "util", "", "pub mod util"],
    ["function", "helper", "util", "pub fn helper"],
  ],
  "outline.c": [
    ["constant", "LIMIT", "", "#define LIMIT"],
    ["variable", "counter", "", "static int counter"],
    ["struct", "point", "", "struct point {"],
    ["field", "x", "point", "int x;"],
    ["field", "y", "point", "int y;"],
    ["enum", "color", "", "enum color {"],
    ["enum_member", "RED", "color", "enum color {"],
    ["enum_member", "GREEN", "color", "enum color {"],
    ["type_parameter", "point_t", "", "typedef struct"],
    ["function", "add", "", "int add(int a, int b);"],
    ["function", "add", "", "int add(int a, int b) {"],
    ["function", "name_of", "", "char *name_of"],
  ],
  "outline.cpp": [
    ["namespace", "shapes", "", "namespace shapes {"],
    ["class", "Greeter", "shapes", "class Greeter {"],
    ["constructor", "Greeter", "shapes.Greeter", "explicit Greeter"],
    ["method", "hello", "shapes.Greeter", "std::string hello"],
    ["field", "prefix_", "shapes.Greeter", "std::string prefix_;"],
    ["struct", "Point", "shapes", "struct Point {"],
    ["field", "x", "shapes.Point", "int x;"],
    ["field", "y", "shapes.Point", "int y;"],
    ["function", "area", "shapes", "int area("],
    ["function", "shapes::Greeter::hello", "", "std::string shapes::Greeter::hello"],
  ],
  "Outline.java": [
    ["class", "Outline", "", "public class Outline"],
    ["field", "LIMIT", "Outline", "LIMIT = 10"],
    ["field", "count", "Outline", "private int count;"],
    ["constructor", "Outline", "Outline", "public Outline(int count)"],
    ["method", "hello", "Outline", "public String hello"],
    ["interface", "Shape", "Outline", "interface Shape"],
    ["method", "area", "Outline.Shape", "double area()"],
    ["enum", "Color", "Outline", "enum Color"],
    ["enum_member", "RED", "Outline.Color", "RED,"],
    ["enum_member", "GREEN", "Outline.Color", "GREEN"],
  ],
  "outline.rb": [
    ["constant", "LIMIT", "", "LIMIT = 10"],
    ["module", "Greetings", "", "module Greetings"],
    ["class", "Greeter", "Greetings", "class Greeter"],
    ["property", "prefix", "Greetings.Greeter", "attr_reader"],
    ["method", "initialize", "Greetings.Greeter", "def initialize"],
    ["method", "hello", "Greetings.Greeter", "def hello"],
    ["method", "build", "Greetings.Greeter", "def self.build"],
    ["method", "helper", "", "def helper"],
  ],
  "outline.sh": [
    ["variable", "LOG_DIR", "", 'LOG_DIR="/tmp/logs"'],
    ["variable", "count", "", "count=0"],
    ["function", "log", "", "log() {"],
    ["function", "main", "", "function main"],
  ],
  "outline.json": [
    ["string", "name", "", '"name"'],
    ["number", "version", "", '"version"'],
    ["boolean", "private", "", '"private"'],
    ["object", "scripts", "", '"scripts"'],
    ["string", "build", "scripts", '"build"'],
    ["string", "test", "scripts", '"test"'],
    ["array", "files", "", '"files"'],
    ["null", "extra", "", '"extra"'],
  ],
  "outline.yaml": [
    ["key", "name", "", "name: demo"],
    ["key", "version", "", "version: 2"],
    ["object", "services", "", "services:"],
    ["object", "web", "services", "web:"],
    ["key", "image", "services.web", "image: nginx"],
    ["array", "ports", "services.web", "ports:"],
    ["object", "db", "services", '"db":'],
    ["key", "image", "services.db", "image: postgres"],
    ["array", "tags", "", "tags:"],
  ],
};

/** The broken fixtures and the text of the line holding each one's mistake. */
const BROKEN: Record<string, string> = {
  "errors/broken.ts": "b: number {",
  "errors/broken.tsx": "</h1;",
  "errors/broken.js": "return host +;",
  "errors/broken.py": "def add(a, b)",
  "errors/broken.go": "return a +",
  "errors/broken.rs": "let sum = a + b",
  "errors/broken.c": "return a + b",
  "errors/broken.cpp": "return count_ }",
  "errors/Broken.java": "return a + b",
  "errors/broken.rb": "def hello(who",
  "errors/broken.sh": "count=$((1 + ))",
  "errors/broken.json": '"version": 2',
  "errors/broken.yaml": "web: [nginx, apache",
};

interface SymbolView {
  name: string;
  kind: string;
  line: number;
  column: number;
  endLine: number;
  container?: string;
}

interface FileDiagnostics {
  file: string;
  status: string;
  syntaxOnly?: boolean;
  diagnostics: { line: number; endLine: number; severity: string; source?: string }[];
}

/**
 * Copies tests/fixtures/syntax to a temp folder. Files Deno's own tools would format, lint or
 * check (TypeScript, JavaScript, JSON, YAML) are kept as `*.fixture` and get their names back here.
 */
async function copyFixture(extra: Record<string, string> = {}): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_syntax_" }));
  const copy = await new Deno.Command("cp", { args: ["-r", `${FIXTURE}.`, root] }).output();
  assert.ok(copy.success, "cp failed");
  for (const dir of [root, join(root, "errors")]) {
    for (const entry of Deno.readDirSync(dir)) {
      if (!entry.name.endsWith(".fixture")) continue;
      await Deno.rename(join(dir, entry.name), join(dir, entry.name.slice(0, -".fixture".length)));
    }
  }
  for (const [name, text] of Object.entries(extra)) {
    await Deno.writeTextFile(join(root, name), text);
  }
  return root;
}

/** The 1-based line holding `marker` and the column of `name`'s first whole-word match there. */
function place(text: string, marker: string, name: string): { line: number; column: number } {
  const lines = text.split("\n");
  const index = lines.findIndex((l) => l.includes(marker));
  assert.ok(index >= 0, `no line holds ${marker}`);
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const found = new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`, "u").exec(lines[index]);
  assert.ok(found, `${name} is not on the line of ${marker}`);
  return { line: index + 1, column: [...lines[index].slice(0, found.index)].length + 1 };
}

async function checkOutline(root: string, file: string, answer: Response) {
  const ok = expectOk(answer, file);
  assert.equal(ok.details.syntaxOnly, true, file);
  assert.match(textOf(ok), /Syntax only: this outline came from lspgate's .* parser/, file);
  const text = await Deno.readTextFile(join(root, file));
  const expected = OUTLINES[file].map(([kind, name, container, marker]) => ({
    kind,
    name,
    container,
    ...place(text, marker, name),
  }));
  const actual = (ok.details.symbols as SymbolView[]).map((s) => ({
    kind: s.kind,
    name: s.name,
    container: s.container ?? "",
    line: s.line,
    column: s.column,
  }));
  assert.deepEqual(actual, expected, file);
}

async function checkBroken(root: string, file: string, answer: Response) {
  const ok = expectOk(answer, file);
  assert.equal(ok.details.syntaxOnly, true, file);
  const [entry] = ok.details.files as FileDiagnostics[];
  assert.equal(entry.status, "ok", file);
  assert.equal(entry.syntaxOnly, true, file);
  assert.ok(entry.diagnostics.length >= 1, `${file}: no parse error reported`);
  const { line } = place(await Deno.readTextFile(join(root, file)), BROKEN[file], "");
  const first = entry.diagnostics[0];
  assert.equal(first.severity, "error");
  assert.equal(first.source, "syntax");
  // The parser may lose track before the mistake, never after it.
  assert.ok(
    first.line <= line && line <= first.endLine,
    `${file}: the first error ${first.line}-${first.endLine} misses line ${line}`,
  );
  assert.match(textOf(ok), /Syntax only for .*: only parse errors/, file);
}

/** Runs lspgate as a subprocess with `flags`, sends `requests`, returns the answers by id. */
async function runLspgate(
  root: string,
  flags: string[],
  requests: Record<string, unknown>[],
): Promise<Map<number, Response>> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, join(LSPGATE_DIR, "mod.ts"), "--root", root],
    cwd: LSPGATE_DIR,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = requests.map((r, i) => JSON.stringify({ id: i + 1, ...r })).join("\n") + "\n";
  await writer.write(new TextEncoder().encode(lines));
  // EOF only once every answer is in: at EOF a parse still loading its grammar gets ~1 s more (by
  // design), which a loaded machine's first grammar load can pass.
  const stderrText = new Response(child.stderr).text();
  let out = "";
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  while (out.split("\n").length <= requests.length) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  await writer.close();
  for (let next = await reader.read(); !next.done; next = await reader.read()) out += next.value;
  const { code } = await child.status;
  const stderr = await stderrText;
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stderr, /Uncaught|^\s+at /m, stderr);
  const answers = out.trim().split("\n").map((l) => JSON.parse(l) as Response);
  return new Map(answers.map((a) => [a.id as number, a]));
}

Deno.test("with no run permission: every language's outline and parse errors, syntax-only", async () => {
  const root = await copyFixture({ "pyproject.toml": '[project]\nname = "syntax"\n' });
  try {
    const outlines = Object.keys(OUTLINES);
    const broken = Object.keys(BROKEN);
    const requests = [
      ...outlines.map((file) => ({ action: "symbols", file })),
      ...broken.map((file) => ({ action: "diagnostics", file })),
      { action: "diagnostics", files: outlines },
      { action: "hover", file: "outline.py", query: "Greeter.hello" },
      { action: "symbols", file: "outline.py", query: "hel" },
    ];
    // Read on the root, lspgate and PATH (to find the servers); no run, no write, no net. The
    // grammars need no read permission: Deno compiles them from its npm cache.
    const path = (Deno.env.get("PATH") ?? "").split(":").filter((dir) => dir.startsWith("/"));
    const answers = await runLspgate(
      root,
      [`--allow-read=${[root, LSPGATE_DIR, ...path].join(",")}`, "--allow-env"],
      requests,
    );
    assert.equal(answers.size, requests.length);
    for (const [i, file] of outlines.entries()) await checkOutline(root, file, answers.get(i + 1)!);
    for (const [i, file] of broken.entries()) {
      await checkBroken(root, file, answers.get(outlines.length + i + 1)!);
    }
    let id = outlines.length + broken.length + 1;
    const clean = expectOk(answers.get(id++)!);
    const files = clean.details.files as FileDiagnostics[];
    assert.deepEqual(
      files.map((f) => [f.file, f.status, f.diagnostics.length]),
      outlines.map((f) => [f, "ok", 0]),
    );
    assert.equal(clean.details.syntaxOnly, true);

    // pyright is on PATH here, but lspgate may not run it: said, with the way to allow it.
    const hover = expectError(answers.get(id++)!, "PERMISSION_DENIED");
    assert.match(hover, /pyright/);
    assert.match(hover, /--allow-run/);
    const text = await Deno.readTextFile(join(root, "outline.py"));
    const at = place(text, "def hello", "hello");
    assert.match(
      hover,
      new RegExp(`\`Greeter\\.hello\` is at outline\\.py:${at.line}:${at.column}\\.`),
    );
    assert.match(
      hover,
      /symbols and diagnostics answer for outline\.py from lspgate's Python parser/,
    );

    const filtered = expectOk(answers.get(id++)!);
    assert.deepEqual((filtered.details.symbols as SymbolView[]).map((s) => s.name), ["hello"]);
    assert.equal(filtered.details.server, "pyright");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("--no-servers: syntax-only answers, and NO_SERVER naming the server that would answer", async () => {
  const root = await copyFixture({ "pyproject.toml": '[project]\nname = "syntax"\n' });
  const { flags } = await parseFlags(["--no-servers", "--root", root, "--sandbox", "none"]);
  const session = await openSession(flags);
  try {
    const ask = (request: Record<string, unknown>) => session.handle({ id: 1, ...request });
    await checkOutline(root, "outline.py", await ask({ action: "symbols", file: "outline.py" }));
    await checkBroken(
      root,
      "errors/broken.ts",
      await ask({ action: "diagnostics", file: "errors/broken.ts" }),
    );
    const symbols = expectOk(await ask({ action: "symbols", file: "outline.py" }));
    assert.equal(symbols.details.server, "pyright");
    assert.match(textOf(symbols), /pyright is turned off by --no-servers/);
    assert.match(textOf(symbols), /pyright would give the full answer\./);
    const definition = expectError(
      await ask({ action: "definition", file: "outline.go", line: 23, symbol: "Hello" }),
      "NO_SERVER",
    );
    assert.match(definition, /^definition needs a language server, and gopls is turned off/);
    assert.match(definition, /gopls would answer it\. `Hello` is at outline\.go:23:19\./);
    // A type with no grammar and no server is NO_SERVER as before.
    await Deno.writeTextFile(join(root, "notes.xyz"), "x\n");
    expectError(await ask({ action: "symbols", file: "notes.xyz" }), "NO_SERVER");
    // A file too large for the parser: both causes said, not "no language server handles .py".
    await Deno.writeTextFile(join(root, "big.py"), `k = "${"x".repeat(80)}"\n`.repeat(100_000));
    const big = expectError(await ask({ action: "symbols", file: "big.py" }), "NO_SERVER");
    assert.match(big, /^pyright is turned off by --no-servers .*, and lspgate's parser could not/);
    assert.match(big, /could not read big\.py: .* bytes, more than/);
    assert.doesNotMatch(big, /No language server handles/);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a missing server binary: symbols and diagnostics syntax-only, hover SERVER_NOT_INSTALLED", async () => {
  const root = await copyFixture({ "pyproject.toml": '[project]\nname = "syntax"\n' });
  const config = defaultConfig();
  config.servers = { pyright: { command: ["/nonexistent/pyright-langserver", "--stdio"] } };
  const session = await Session.open({
    root,
    role: "main",
    allowMutations: false,
    adapters: ADAPTERS,
    config,
  });
  try {
    const symbols = await session.handle({ id: 1, action: "symbols", file: "outline.py" });
    await checkOutline(root, "outline.py", symbols);
    assert.match(textOf(expectOk(symbols)), /\/nonexistent\/pyright-langserver was not found/);
    await checkBroken(
      root,
      "errors/broken.py",
      await session.handle({ id: 2, action: "diagnostics", file: "errors/broken.py" }),
    );
    const hover = expectError(
      await session.handle({ id: 3, action: "hover", file: "outline.py", query: "greet" }),
      "SERVER_NOT_INSTALLED",
    );
    assert.match(hover, /npm install -g pyright/);
    assert.match(hover, /`greet` is at outline\.py:7:5\./);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});

/** A server's outline and the syntax outline of one file, as sets of "name@line". */
async function bothOutlines(file: string, marker: Record<string, string>) {
  const root = await copyFixture(marker);
  const server = await Session.open({
    root,
    role: "main",
    allowMutations: false,
    adapters: ADAPTERS,
    config: defaultConfig(),
  });
  const { flags } = await parseFlags(["--no-servers", "--root", root]);
  const syntax = await openSession(flags);
  try {
    const real = expectOk(await server.handle({ id: 1, action: "symbols", file }));
    assert.notEqual(real.details.syntaxOnly, true, "the real server did not answer");
    const fromTree = expectOk(await syntax.handle({ id: 2, action: "symbols", file }));
    assert.equal(fromTree.details.syntaxOnly, true);
    const realSymbols = real.details.symbols as SymbolView[];
    // Variables inside a function body (locals, and pyright's parameters) are left out of the
    // syntax outline on purpose: an outline is the file's declarations.
    const functions = new Set(
      realSymbols.filter((s) => ["function", "method", "constructor"].includes(s.kind))
        .map((s) => s.container ? `${s.container}.${s.name}` : s.name),
    );
    const declarations = realSymbols.filter((s) =>
      !(["variable", "constant"].includes(s.kind) && functions.has(s.container ?? ""))
    );
    const key = (s: SymbolView) => `${s.name}@${s.line}`;
    return {
      server: declarations.map(key).sort(),
      tree: (fromTree.details.symbols as SymbolView[]).map(key).sort(),
    };
  } finally {
    await server.close();
    await syntax.close();
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("the TypeScript syntax outline agrees with typescript-language-server by name and line", async () => {
  const { server, tree } = await bothOutlines("outline.ts", {
    "tsconfig.json": '{ "compilerOptions": { "strict": true }, "include": ["outline.ts"] }\n',
  });
  assert.deepEqual(tree, server);
});

Deno.test("the Python syntax outline agrees with pyright by name and line", async () => {
  const { server, tree } = await bothOutlines("outline.py", {
    "pyproject.toml": '[project]\nname = "syntax"\n',
  });
  assert.deepEqual(tree, server);
});

Deno.test("rename: a new name that is not an identifier is INVALID_INPUT before the server is asked", async () => {
  const h = await harness("deno");
  try {
    const message = await h.fails(
      { action: "rename", file: "src/greet.ts", query: "greet", new_name: "class" },
      "INVALID_INPUT",
    );
    assert.match(
      message,
      /`class` is a reserved word in TypeScript: line 2 would read `export function class/,
    );
    await h.fails(
      { action: "rename", file: "src/greet.ts", query: "greet", new_name: "say hello" },
      "INVALID_INPUT",
    );
    const preview = await h.ok({
      action: "rename",
      file: "src/greet.ts",
      query: "greet",
      new_name: "salute",
    });
    assert.ok((preview.details.edits as number) >= 2, textOf(preview));
  } finally {
    await h.close();
  }
});

Deno.test("a server that cannot list symbols gets query positions from the syntax tree", async () => {
  const root = await copyFixture();
  const adapter = { ...fakeAdapter("normal"), id: "fake-python", languages: { ".py": "python" } };
  const session = await Session.open({
    root,
    role: "main",
    allowMutations: false,
    adapters: [adapter],
    config: defaultConfig(),
  });
  try {
    const hover = expectOk(
      await session.handle({ id: 1, action: "hover", file: "outline.py", query: "Greeter.hello" }),
    );
    const at = place(await Deno.readTextFile(join(root, "outline.py")), "def hello", "hello");
    assert.match(
      textOf(hover),
      new RegExp(`\`Greeter\\.hello\` \\(outline\\.py:${at.line}:${at.column}\\)`),
    );
    expectError(
      await session.handle({
        id: 2,
        action: "hover",
        file: "outline.py",
        query: "Nowhere.nothing",
      }),
      "SYMBOL_NOT_FOUND",
    );
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});
