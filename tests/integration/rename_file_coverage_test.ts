// rename_file says partial, and refuses an apply without allow_partial, where the server's import
// updates miss files that import the moved one; real lspgate over real servers, on a helper's
// finds: pyright (no workspace/willRenameFiles) moved pkg/util.py with "0 edits in 1 file
// (applied)" and broke pkg/main.py; a sibling package's import was left unchanged; semver without a
// jsconfig.json updated 0 of its importers in a fresh session.
import assert from "node:assert/strict";
import { join } from "node:path";
import { hostileRepo, runLspgate } from "../security/hostile.ts";

interface Line {
  ok: boolean;
  content?: { text: string }[];
  details?: Record<string, unknown>;
  error?: { code: string; message: string };
}

const MUTATIONS = { flags: ["--allow-mutations"] };

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test("pyright: rename_file of an imported module is partial (no willRenameFiles) and its apply refused; a module nothing imports moves", async () => {
  const main = "from pkg.util import greet\n\nprint(greet('a'))\n";
  const repo = await hostileRepo({
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/util.py": "def greet(name: str) -> str:\n    return name\n",
    "pkg/main.py": main,
    "scripts/standalone_tool.py": "print('alone')\n",
  });
  try {
    const move = { action: "rename_file", file: "pkg/util.py", new_name: "pkg/helpers.py" };
    const { lines } = await runLspgate(repo.root, [
      { id: 1, ...move },
      { id: 2, ...move, apply: true },
      { id: 3, action: "rename_file", file: "scripts/standalone_tool.py", new_name: "tool.py" },
      {
        id: 4,
        action: "rename_file",
        file: "scripts/standalone_tool.py",
        new_name: "tool.py",
        apply: true,
      },
      { id: 5, ...move, apply: true, allow_partial: true },
    ], MUTATIONS) as unknown as { lines: Line[] };
    const reason = "pyright does not update imports on a move (it offers no " +
      "workspace/willRenameFiles); `util` is a word in pkg/main.py, whose imports of pkg/util.py " +
      "would be left as they are";
    assert.equal(lines[0].ok, true, JSON.stringify(lines[0]));
    assert.equal(lines[0].details?.partial, true, lines[0].content?.[0].text);
    assert.equal(lines[0].details?.partialReason, reason);
    assert.equal(lines[0].details?.supported, false);
    assert.match(lines[0].content![0].text, /Note: this answer is partial: pyright does not/);
    assert.equal(lines[1].ok, false, JSON.stringify(lines[1]));
    assert.equal(lines[1].error?.code, "ACTION_NOT_ALLOWED");
    // Nothing imports the script: its move is complete, and applied.
    assert.equal(lines[2].details?.partial, false, lines[2].content?.[0].text);
    assert.equal(lines[3].ok, true, JSON.stringify(lines[3]));
    assert.equal(lines[3].details?.applied, true);
    assert.ok(await exists(join(repo.root, "tool.py")));
    // allow_partial moves it anyway, and says so.
    assert.equal(lines[4].ok, true, JSON.stringify(lines[4]));
    assert.equal(lines[4].details?.applied, true);
    assert.equal(lines[4].details?.partialReason, reason);
    assert.ok(await exists(join(repo.root, "pkg/helpers.py")));
    assert.equal(await Deno.readTextFile(join(repo.root, "pkg/main.py")), main);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("typescript: rename_file of a module a sibling package imports is partial, naming it; the apply is refused", async () => {
  const tsconfig = JSON.stringify({
    compilerOptions: { strict: true, module: "esnext", moduleResolution: "bundler", noEmit: true },
    include: ["src"],
  });
  const b = 'import { makeClient } from "../../a/src/a";\nexport const c = makeClient("x");\n';
  const repo = await hostileRepo({
    "packages/a/tsconfig.json": tsconfig,
    "packages/a/package.json": JSON.stringify({ name: "a" }),
    "packages/a/src/a.ts": "export function makeClient(u: string) { return u; }\n",
    "packages/b/tsconfig.json": tsconfig,
    "packages/b/package.json": JSON.stringify({ name: "b" }),
    "packages/b/src/b.ts": b,
  });
  try {
    const move = {
      action: "rename_file",
      file: "packages/a/src/a.ts",
      new_name: "packages/a/src/client.ts",
    };
    const { lines } = await runLspgate(repo.root, [
      { id: 1, ...move },
      { id: 2, ...move, apply: true },
    ], MUTATIONS) as unknown as { lines: Line[] };
    assert.equal(lines[0].ok, true, JSON.stringify(lines[0]));
    assert.equal(lines[0].details?.partial, true, lines[0].content?.[0].text);
    assert.equal(
      lines[0].details?.partialReason,
      "`a` is also a word in files of other projects in this workspace, which this server does " +
        "not search (packages/b/src/b.ts)",
    );
    assert.equal(lines[1].ok, false, JSON.stringify(lines[1]));
    assert.equal(lines[1].error?.code, "ACTION_NOT_ALLOWED");
    assert.ok(await exists(join(repo.root, "packages/a/src/a.ts")), "a.ts was moved");
    assert.equal(await Deno.readTextFile(join(repo.root, "packages/b/src/b.ts")), b);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("javascript without a jsconfig.json: rename_file in a fresh session updates every importer, complete", async () => {
  const repo = await hostileRepo({
    "package.json": JSON.stringify({ name: "js", version: "1.0.0" }),
    "lib/compare.js": "const compare = (a, b) => a - b\nmodule.exports = compare\n",
    "functions/eq.js": "const compare = require('../lib/compare')\n" +
      "const eq = (a, b) => compare(a, b) === 0\nmodule.exports = eq\n",
    "functions/gt.js": "const compare = require('../lib/compare')\n" +
      "const gt = (a, b) => compare(a, b) > 0\nmodule.exports = gt\n",
    "index.js": "module.exports = { compare: require('./lib/compare') }\n",
  });
  try {
    const { lines } = await runLspgate(repo.root, [{
      id: 1,
      action: "rename_file",
      file: "lib/compare.js",
      new_name: "lib/compare-main.js",
    }]) as unknown as { lines: Line[] };
    assert.equal(lines[0].ok, true, JSON.stringify(lines[0]));
    const changed = (lines[0].details?.changes as { file: string }[]).map((c) => c.file).sort();
    // The importers updated, and the move itself.
    assert.deepEqual(
      changed,
      ["functions/eq.js", "functions/gt.js", "index.js", "lib/compare.js"],
      lines[0].content?.[0].text,
    );
    assert.equal(lines[0].details?.partial, false, lines[0].content?.[0].text);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("go: rename_file within its package is complete and applies; a move to another folder, whose package main.go imports, is partial", async () => {
  const repo = await hostileRepo({
    "go.mod": "module example.com/root\n\ngo 1.21\n",
    "greet/greet.go": 'package greet\n\nfunc Hello() string { return "hi" }\n',
    "main.go": 'package main\n\nimport "example.com/root/greet"\n\n' +
      "func main() { println(greet.Hello()) }\n",
  });
  try {
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "rename_file", file: "greet/greet.go", new_name: "other/greet.go" },
      {
        id: 2,
        action: "rename_file",
        file: "greet/greet.go",
        new_name: "greet/hello.go",
        apply: true,
      },
    ], MUTATIONS) as unknown as { lines: Line[] };
    assert.equal(lines[0].details?.partial, true, lines[0].content?.[0].text);
    assert.equal(
      lines[0].details?.partialReason,
      "gopls does not update imports on a move (it offers no workspace/willRenameFiles); " +
        "`greet` is a word in main.go, whose imports of greet/greet.go would be left as they are",
    );
    assert.equal(lines[1].ok, true, JSON.stringify(lines[1]));
    assert.equal(lines[1].details?.partial, false, lines[1].content?.[0].text);
    assert.equal(lines[1].details?.applied, true);
    assert.ok(await exists(join(repo.root, "greet/hello.go")));
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});
