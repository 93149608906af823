// A name used in another project of the workspace, which the asked server never searches, makes a
// workspace-wide answer partial, naming where; an applied rename built on it is refused. Real
// lspgate over real servers, on the shapes a helper found answered "complete": a TypeScript
// monorepo (packages beside each other, scripts/ of the root), a Go module nested in another.
import assert from "node:assert/strict";
import { join } from "node:path";
import { locate } from "../helpers/locate.ts";
import { hostileRepo, runLspgate } from "../security/hostile.ts";

interface Line {
  ok: boolean;
  content?: { text: string }[];
  details?: Record<string, unknown>;
  error?: { code: string; message: string };
}

const TSCONFIG = JSON.stringify({
  compilerOptions: { strict: true, module: "esnext", moduleResolution: "bundler" },
  include: ["src"],
});

Deno.test("typescript monorepo: references, rename and callers of core's greet say app and scripts use it; the apply is refused", async () => {
  const repo = await hostileRepo({
    "package.json": JSON.stringify({ name: "mono", private: true, workspaces: ["packages/*"] }),
    "packages/core/package.json": JSON.stringify({ name: "@demo/core", main: "src/index.ts" }),
    "packages/core/tsconfig.json": TSCONFIG,
    "packages/core/src/index.ts": "export function greet(name: string): string {\n" +
      "  return `hello ${name}`;\n}\n\nexport const loud = (n: string) => greet(n).toUpperCase();\n" +
      "\nexport function total(xs: number[]): number {\n  let sum = 0;\n" +
      "  for (const x of xs) sum += x;\n  return sum;\n}\n" +
      "\nexport function makeThing() {\n  return { shout() {\n    return 1;\n  } };\n}\n",
    "packages/app/package.json": JSON.stringify({ name: "@demo/app" }),
    "packages/app/tsconfig.json": TSCONFIG,
    "packages/app/src/main.ts": 'import { greet } from "@demo/core";\n\n' +
      'export function main(): void {\n  console.log(greet("app"));\n}\n\nexport const sum = 2;\n' +
      'import { makeThing } from "@demo/core";\nexport const loudly = makeThing().shout();\n',
    "scripts/release.ts": 'import { greet } from "../packages/core/src/index";\n\n' +
      'console.log(greet("release"));\n',
  });
  try {
    const core = "packages/core/src/index.ts";
    const at = { file: core, ...locate(await Deno.readTextFile(join(repo.root, core)), "greet") };
    const before = await Deno.readTextFile(join(repo.root, core));
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "references", ...at },
      { id: 2, action: "rename", ...at, new_name: "salute" },
      { id: 3, action: "incoming_calls", ...at },
      { id: 4, action: "rename", ...at, new_name: "salute", apply: true },
      { id: 5, action: "references", file: core, ...locate(before, "sum") },
      { id: 6, action: "references", file: core, ...locate(before, "shout") },
    ], { flags: ["--allow-mutations"] }) as unknown as { lines: Line[] };
    const reason = "`greet` is also a word in files of other projects in this workspace, which " +
      "this server does not search (packages/app/src/main.ts, scripts/release.ts)";
    for (const line of lines.slice(0, 3)) {
      assert.equal(line.ok, true, JSON.stringify(line));
      assert.equal(line.details?.partial, true, line.content?.[0].text);
      assert.equal(line.details?.partialReason, reason);
    }
    // What core's own server found is still all there.
    assert.equal(lines[0].details?.total, 2);
    assert.equal(lines[3].ok, false);
    assert.equal(lines[3].error?.code, "ACTION_NOT_ALLOWED");
    assert.equal(await Deno.readTextFile(join(repo.root, core)), before, "nothing written");
    // A local of total(): no other project can see it, whatever words they hold (app's `sum`).
    assert.equal(lines[4].details?.partial, false, lines[4].content?.[0].text);
    assert.equal(lines[4].details?.total, 3);
    // A method of the object a function returns is declared inside it, yet reached from app: not
    // a local (a reviewer's find: it was taken for one, and its rename previewed complete).
    assert.equal(lines[5].details?.partial, true, lines[5].content?.[0].text);
    assert.match(String(lines[5].details?.partialReason), /packages\/app\/src\/main\.ts/);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("go: references of a root module's function say the nested tools module calls it; a name no other project uses stays complete", async () => {
  const repo = await hostileRepo({
    "go.mod": "module example.com/root\n\ngo 1.21\n",
    "greet/greet.go": "package greet\n\n// Hello greets.\nfunc Hello(name string) string {\n" +
      '\treturn "hello " + name\n}\n\nfunc Quiet() string { return Hello("") }\n',
    "greet/twice.go":
      "package greet\n\nfunc Twice(n string) string { return Hello(n) + Hello(n) }\n",
    "tools/go.mod": "module example.com/tools\n\ngo 1.21\n\nrequire example.com/root v0.0.0\n\n" +
      "replace example.com/root => ../\n",
    "tools/main.go": 'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/root/greet"\n)\n\n' +
      'func main() {\n\tfmt.Println(greet.Hello("tools"))\n}\n',
  });
  try {
    const text = await Deno.readTextFile(join(repo.root, "greet/greet.go"));
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "references", file: "greet/greet.go", ...locate(text, "Hello(name") },
      { id: 2, action: "references", file: "greet/greet.go", ...locate(text, "Quiet") },
    ]) as unknown as { lines: Line[] };
    const [hello, quiet] = lines;
    assert.equal(hello.details?.partial, true, hello.content?.[0].text);
    assert.match(String(hello.details?.partialReason), /\(tools\/main\.go\)$/);
    assert.equal(hello.details?.total, 4, hello.content?.[0].text);
    assert.equal(quiet.details?.partial, false, quiet.content?.[0].text);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("a declaration file standing in for the code asked about (.pyi, .d.ts for JavaScript) makes references partial, naming it", async () => {
  // Imports resolve to the stub's declaration, a symbol of its own: from the implementation, the
  // uses made through the package were missed, complete (attrs' Factory: 26 of 53).
  const repo = await hostileRepo({
    "pyproject.toml": '[project]\nname = "pkg"\nversion = "1.0"\n',
    "src/pkg/_impl.py": "class Factory:\n    pass\n\n\ndef make():\n    result = Factory()\n" +
      "    return result\n",
    "src/pkg/__init__.py": 'from ._impl import Factory, make\n\n__all__ = ["Factory", "make"]\n',
    "src/pkg/__init__.pyi": "class Factory: ...\n\ndef make() -> Factory: ...\n\nresult: int\n",
    "tests/test_pkg.py": "from pkg import Factory\n\n\ndef test():\n    assert Factory()\n",
    "package.json": JSON.stringify({ name: "shadow", type: "module" }),
    "lib/helper.js": "export function helper(n) {\n  return n + 1;\n}\n",
    "lib/helper.d.ts": "export declare function helper(n: number): number;\n",
    "src/a.js": 'import { helper } from "../lib/helper.js";\nexport const a = () => helper(1);\n',
    "lib/other.js": "export function alone() {\n  return 2;\n}\n",
  });
  try {
    const impl = await Deno.readTextFile(join(repo.root, "src/pkg/_impl.py"));
    const helper = await Deno.readTextFile(join(repo.root, "lib/helper.js"));
    const other = await Deno.readTextFile(join(repo.root, "lib/other.js"));
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "references", file: "src/pkg/_impl.py", ...locate(impl, "Factory") },
      { id: 2, action: "references", file: "lib/helper.js", ...locate(helper, "helper") },
      { id: 3, action: "references", file: "lib/other.js", ...locate(other, "alone") },
      { id: 4, action: "references", file: "src/pkg/_impl.py", ...locate(impl, "result") },
    ]) as unknown as { lines: Line[] };
    const said = (name: string, stub: string) =>
      `\`${name}\` is also declared in ${stub} (declaration files): uses that resolve to a ` +
      "declaration there are not found from here; ask at it too";
    assert.equal(lines[0].details?.partialReason, said("Factory", "src/pkg/__init__.pyi"));
    assert.equal(lines[1].details?.partialReason, said("helper", "lib/helper.d.ts"));
    // A name no declaration file holds: complete. So is a local of make(), though the stub
    // holds the word (`result: int`).
    assert.equal(lines[2].details?.partial, false, lines[2].content?.[0].text);
    assert.equal(lines[3].details?.partial, false, lines[3].content?.[0].text);
    assert.equal(lines[3].details?.total, 2);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("components and notebooks holding the name (.vue, .svelte, .astro, .ipynb) make references partial, naming them; the apply is refused", async () => {
  // tsserver and pyright search none of them: a rename of greet answered "1 edit in 1 file
  // (applied)", complete, and broke both components (a prober's find).
  const util = 'export function greet(s: string): string {\n  return "hi " + s;\n}\n\n' +
    "export function quiet(): number {\n  return 1;\n}\n";
  const repo = await hostileRepo({
    "package.json": JSON.stringify({ name: "app", dependencies: { vue: "^3", svelte: "^5" } }),
    "tsconfig.json": TSCONFIG,
    "src/util.ts": util,
    "src/main.ts": 'import { quiet } from "./util";\nexport const q = quiet();\n',
    "src/App.vue": '<script setup lang="ts">\nimport { greet } from "./util";\n' +
      'const msg = greet("vue");\n</script>\n<template><p>{{ msg }}</p></template>\n',
    "src/Hello.svelte": '<script lang="ts">\n  import { greet } from "./util";\n</script>\n' +
      '<p>{greet("svelte")}</p>\n',
    "pyproject.toml": '[project]\nname = "pkg"\nversion = "1.0"\n',
    "pkg/__init__.py": "",
    "pkg/mod.py": "def scale(x: int) -> int:\n    return 2 * x\n",
    "notebooks/explore.ipynb": JSON.stringify({
      cells: [{
        cell_type: "code",
        metadata: {},
        source: ["from pkg.mod import scale\n", "scale(3)\n"],
        outputs: [],
        execution_count: null,
      }],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    }),
  });
  try {
    const at = { file: "src/util.ts", ...locate(util, "greet") };
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "references", ...at },
      { id: 2, action: "rename", ...at, new_name: "hello", apply: true },
      { id: 3, action: "references", file: "src/util.ts", ...locate(util, "quiet") },
      { id: 4, action: "references", file: "pkg/mod.py", line: 1, symbol: "scale" },
    ], { flags: ["--allow-mutations"] }) as unknown as { lines: Line[] };
    const said = (name: string, files: string) =>
      `\`${name}\` is also a word in ${files}, whose embedded code this server does not search ` +
      "(components, notebooks)";
    assert.equal(lines[0].details?.partial, true, lines[0].content?.[0].text);
    assert.equal(lines[0].details?.partialReason, said("greet", "src/App.vue, src/Hello.svelte"));
    assert.equal(lines[1].error?.code, "ACTION_NOT_ALLOWED", JSON.stringify(lines[1]));
    assert.equal(await Deno.readTextFile(join(repo.root, "src/util.ts")), util, "nothing written");
    // A name no component holds: complete.
    assert.equal(lines[2].details?.partial, false, lines[2].content?.[0].text);
    assert.equal(lines[3].details?.partialReason, said("scale", "notebooks/explore.ipynb"));
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});
