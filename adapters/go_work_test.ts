import assert from "node:assert/strict";
import { importsOf, localReplaces, workUses } from "./go_work.ts";

Deno.test("workUses() reads single and block `use` directives, with comments and quotes", () => {
  const text = "go 1.22\n\n// use ./commented\nuse ./a // the first\nuse (\n\t./b\n" +
    '\t"./c d" // quoted\n\t// ./e\n\t`/abs/f`\n)\nuse (./g)\ntoolchain go1.22.1\n' +
    "replace example.com/x => ./x\n";
  assert.deepEqual(workUses(text, "/w"), ["/w/a", "/w/b", "/w/c d", "/abs/f", "/w/g"]);
  assert.deepEqual(workUses("go 1.22\n\nuse .\n", "/w"), ["/w"]);
});

Deno.test("localReplaces() keeps the replacements by a folder, not by a module version", () => {
  const text = "module example.com/c\n\nreplace example.com/a => ../a\n" +
    "replace (\n\texample.com/b v1.0.0 => ./vendor/b // pinned\n\texample.com/z => example.com/y v1.2.0\n)\n";
  assert.deepEqual(
    [...localReplaces(text, "/w/c")],
    [["example.com/a", "/w/a"], ["example.com/b", "/w/c/vendor/b"]],
  );
});

Deno.test("importsOf() reads single, grouped and named imports, not commented ones", () => {
  const text = 'package c\n\nimport "fmt"\nimport x "example.com/a/x"\n\nimport (\n\t"os"\n' +
    '\t// "example.com/gone"\n\ty "example.com/a"\n\t_ "embed"\n)\n\n/* import "nope" */\n' +
    "func f() {}\n";
  assert.deepEqual(importsOf(text), ["fmt", "example.com/a/x", "os", "example.com/a", "embed"]);
});
