import assert from "node:assert/strict";
import { LspGateError } from "../errors.ts";
import { expandBraces, GlobMatcher, MAX_BRACE_EXPANSIONS } from "./glob.ts";

const ROOT = "/ws";

function matches(pattern: string, path: string): boolean {
  return new GlobMatcher(pattern, ROOT).matches(path);
}

Deno.test("GlobMatcher matches *, **, ?, [abc], [!abc] and {a,b}", () => {
  const cases: [string, string, boolean][] = [
    ["*.ts", "a.ts", true],
    ["*.ts", "src/a.ts", false],
    ["*.ts", ".hidden.ts", true],
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "src/deep/er/a.ts", true],
    ["**/*.ts", "src/a.js", false],
    ["src/**", "src/a/b.ts", true],
    ["src/**", "src", false],
    ["src/**/test/*.ts", "src/test/a.ts", true],
    ["src/**/test/*.ts", "src/x/y/test/a.ts", true],
    ["src/**/**/a.ts", "src/a.ts", true],
    ["?.ts", "a.ts", true],
    ["?.ts", "ab.ts", false],
    ["?.ts", "😀.ts", true],
    ["[ab].ts", "b.ts", true],
    ["[ab].ts", "c.ts", false],
    ["[!ab].ts", "c.ts", true],
    ["[a-c].ts", "b.ts", true],
    ["[a-c].ts", "/.ts", false],
    ["{a,b/c}.ts", "b/c.ts", true],
    ["{src,lib}/{a,b}.ts", "lib/b.ts", true],
    ["a.(ts)+$", "a.(ts)+$", true],
    ["a.ts", "aXts", false],
    ["[unclosed", "[unclosed", true],
    ["./src/a.ts", "src/a.ts", true],
    ["src//a.ts", "src/a.ts", true],
    ["/ws/src/*.ts", "src/a.ts", true],
  ];
  for (const [pattern, path, expected] of cases) {
    assert.equal(matches(pattern, path), expected, `${pattern} vs ${path}`);
  }
});

Deno.test("GlobMatcher prunes folders that cannot hold a match", () => {
  const m = new GlobMatcher("src/*/x.ts", ROOT);
  assert.equal(m.couldContain(["src"]), true);
  assert.equal(m.couldContain(["src", "a"]), true);
  assert.equal(m.couldContain(["src", "a", "b"]), false);
  assert.equal(m.couldContain(["lib"]), false);
  assert.equal(new GlobMatcher("**/x.ts", ROOT).couldContain(["a", "b", "c"]), true);
});

Deno.test("GlobMatcher.names() is true only for a folder the pattern spells out", () => {
  assert.equal(new GlobMatcher("node_modules/**/*.d.ts", ROOT).names(["node_modules"]), true);
  assert.equal(new GlobMatcher("**/node_modules/*", ROOT).names(["a", "node_modules"]), true);
  assert.equal(new GlobMatcher("**/*.ts", ROOT).names(["node_modules"]), false);
  assert.equal(new GlobMatcher("node_*/*.ts", ROOT).names(["node_modules"]), false);
});

Deno.test("GlobMatcher.coversFolder() is true when every file below matches", () => {
  assert.equal(new GlobMatcher("gen", ROOT).coversFolder(["gen"]), true);
  assert.equal(new GlobMatcher("**/gen/**", ROOT).coversFolder(["a", "gen"]), true);
  assert.equal(new GlobMatcher("gen/*.ts", ROOT).coversFolder(["gen"]), false);
});

Deno.test("GlobMatcher refuses .. segments, also inside braces, and absolute patterns outside", () => {
  for (
    const pattern of [
      "..",
      "../x",
      "a/../../x",
      "{..,a}/x",
      "{a,{b,..}}/x",
      "{/etc,a}/x",
      "/etc/*",
      "/ws-evil/*",
      "/ws",
      "C:/x",
      "\\\\srv\\x",
      "file:///ws/x",
    ]
  ) {
    assert.throws(
      () => new GlobMatcher(pattern, ROOT),
      (e) => e instanceof LspGateError && e.code === "OUTSIDE_WORKSPACE",
      pattern,
    );
  }
  // `..` as part of a name is just a name.
  assert.equal(matches("a..b/*.ts", "a..b/x.ts"), true);
});

Deno.test("GlobMatcher refuses empty, NUL, backslash and over-long patterns", () => {
  for (const pattern of ["", "a\0b", "src\\*.ts", "a".repeat(5000), 42 as unknown as string]) {
    assert.throws(
      () => new GlobMatcher(pattern, ROOT),
      (e) => e instanceof LspGateError && e.code === "INVALID_INPUT",
      String(pattern).slice(0, 20),
    );
  }
});

Deno.test("expandBraces() expands nested groups and caps the count", () => {
  assert.deepEqual(expandBraces("{a,b{c,d}}.ts").sort(), ["a.ts", "bc.ts", "bd.ts"]);
  assert.deepEqual(expandBraces("{a}.ts"), ["{a}.ts"]);
  assert.deepEqual(expandBraces("x{,y}"), ["x", "xy"]);
  assert.throws(
    () => expandBraces("{a,b}".repeat(9)),
    (e) => e instanceof LspGateError && e.code === "INVALID_INPUT",
  );
  assert.ok(2 ** 8 <= MAX_BRACE_EXPANSIONS);
});
