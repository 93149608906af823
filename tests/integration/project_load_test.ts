// A project a server could not (wholly) load is never "not found" (issue 15, item 3): answers that
// depend on what failed carry `partial: true` and the server's reason, and `status` shows it;
// answers about code that loaded stay complete. Real lspgate over real servers.
import assert from "node:assert/strict";
import { join } from "node:path";
import { locate } from "../helpers/locate.ts";
import { hostileRepo, ok, runLspgate } from "../security/hostile.ts";

interface Answer {
  text: string;
  partial: boolean;
}

function answer(line: Record<string, unknown>): Answer {
  const details = ok(line);
  const content = line.content as { text: string }[];
  return { text: content[0].text, partial: details.partial as boolean };
}

function statusText(line: Record<string, unknown>): string {
  ok(line);
  return (line.content as { text: string }[])[0].text;
}

Deno.test("gopls: a module its go.mod requires but the cache lacks makes answers in the importing file partial with gopls's reason; other files stay complete", async () => {
  const repo = await hostileRepo({
    "go.mod": "module example.com/fail\n\ngo 1.22\n\n" +
      "require github.com/nonexistent-lspgate/missing v1.0.0\n",
    "main.go": 'package main\n\nimport "github.com/nonexistent-lspgate/missing"\n\n' +
      "func main() {\n\t_ = missing.Thing()\n}\n",
    "util.go": "package main\n\nfunc helper() int { return 2 }\n\nvar _ = helper()\n",
  });
  try {
    const main = await Deno.readTextFile(join(repo.root, "main.go"));
    const util = await Deno.readTextFile(join(repo.root, "util.go"));
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "diagnostics", file: "main.go" },
      { id: 2, action: "definition", file: "main.go", ...locate(main, "Thing") },
      { id: 3, action: "hover", file: "main.go", ...locate(main, "Thing") },
      { id: 4, action: "definition", file: "util.go", ...locate(util, "helper()\n") },
      { id: 5, action: "status" },
    ]);
    const reason = /could not import github\.com\/nonexistent-lspgate\/missing/;
    for (const line of [lines[1], lines[2]]) {
      const { text, partial } = answer(line);
      assert.equal(partial, true, text);
      assert.match(text, /gopls could not load all of the project/);
      assert.match(text, reason);
    }
    // util.go imports nothing broken: its answer is whole.
    const helper = answer(lines[3]);
    assert.equal(helper.partial, false, helper.text);
    assert.match(statusText(lines[4]), /could not load the project \(answers partial\)/);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

/** A Python project whose main.py imports a package its environment lacks; util.py imports none. */
async function brokenImportRepo() {
  const repo = await hostileRepo({
    "pyproject.toml": '[project]\nname = "ws"\nversion = "0.1.0"\n',
    "main.py": "import lspgate_no_such_package\n\nprint(lspgate_no_such_package.thing)\n",
    "util.py": "def greet() -> int:\n    return 1\n\n\nx = greet()\n",
  });
  const main = await Deno.readTextFile(join(repo.root, "main.py"));
  const util = await Deno.readTextFile(join(repo.root, "util.py"));
  return { repo, main, util };
}

Deno.test("pyright: an import its environment lacks makes answers in that file partial with pyright's reason", async () => {
  const { repo, main, util } = await brokenImportRepo();
  try {
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "diagnostics", file: "main.py" },
      { id: 2, action: "definition", file: "main.py", ...locate(main, "thing") },
      { id: 3, action: "definition", file: "util.py", ...locate(util, "greet()\n") },
      { id: 4, action: "symbols", file: "*", query: "greet" },
    ]);
    const thing = answer(lines[1]);
    assert.equal(thing.partial, true, thing.text);
    assert.match(thing.text, /Import "lspgate_no_such_package" could not be resolved/);
    const greet = answer(lines[2]);
    assert.equal(greet.partial, false, greet.text);
    // A workspace search says why it is partial; "still loading, ask again" would never change.
    const search = answer(lines[3]);
    assert.equal(search.partial, true, search.text);
    assert.match(search.text, /could not load all of the project: main\.py: Import "lspgate_no/);
    assert.doesNotMatch(search.text, /still loading/);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("pyright: nothing found in a file with an import it could not resolve is partial with its reason, asked before any diagnostics", async () => {
  // pyright pulls: it says nothing of a file's imports until asked, so the first definition of a
  // name from a broken import answered "No definition found", complete.
  const { repo, main, util } = await brokenImportRepo();
  try {
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "definition", file: "main.py", ...locate(main, "thing") },
      { id: 2, action: "hover", file: "main.py", ...locate(main, "thing") },
      { id: 3, action: "definition", file: "util.py", ...locate(util, "1\n") },
    ]);
    const reason = /Import "lspgate_no_such_package" could not be resolved/;
    const thing = answer(lines[0]);
    assert.equal(thing.partial, true, thing.text);
    assert.match(thing.text, /^No definition found for `thing`/);
    assert.match(thing.text, reason);
    const details = lines[0].details as { partialReason?: string };
    assert.match(String(details.partialReason), /could not load all of the project: Import/);
    // pyright's hover there says `thing: Unknown`: partial too, now that the file's imports are known.
    const hover = answer(lines[1]);
    assert.equal(hover.partial, true, hover.text);
    assert.match(hover.text, reason);
    // Nothing found in a file whose imports all resolve is an answer: complete.
    const literal = answer(lines[2]);
    assert.match(literal.text, /^No definition found/);
    assert.equal(literal.partial, false, literal.text);
    // References, the first question of another process: none found is "don't know" there too.
    const refs = await runLspgate(repo.root, [
      { id: 1, action: "references", file: "main.py", ...locate(main, "thing") },
    ]);
    const none = answer(refs.lines[0]);
    assert.match(none.text, /^No references found for `thing`/);
    assert.equal(none.partial, true, none.text);
    assert.match(none.text, reason);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("pyright: a hover saying `Unknown`, the first question in a file with an import it could not resolve, is partial with its reason", async () => {
  // Asked first, pyright had said nothing of the file's imports yet: `thing: Unknown` was complete.
  const { repo, main, util } = await brokenImportRepo();
  try {
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "hover", file: "main.py", ...locate(main, "thing") },
      { id: 2, action: "hover", file: "util.py", ...locate(util, "greet()\n") },
    ]);
    const thing = answer(lines[0]);
    assert.match(thing.text, /thing: Unknown/);
    assert.equal(thing.partial, true, thing.text);
    assert.match(thing.text, /Import "lspgate_no_such_package" could not be resolved/);
    // A hover whose type is known, in a file whose imports resolve: complete.
    const greet = answer(lines[1]);
    assert.match(greet.text, /def greet\(\) -> int/);
    assert.equal(greet.partial, false, greet.text);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("typescript-language-server: nothing found in a JavaScript file whose import tsserver cannot resolve is partial, naming it; with every import resolved it is complete", async () => {
  // tsserver reports no error for a JavaScript import it cannot resolve: a monorepo before its
  // `npm install` answered "No definition found", complete.
  const repo = await hostileRepo({
    "package.json": JSON.stringify({ name: "mono", private: true, workspaces: ["packages/*"] }),
    "packages/lib/package.json": JSON.stringify({
      name: "mylib",
      version: "1.0.0",
      main: "index.js",
    }),
    "packages/lib/index.js": "export default function make() {\n  return { size: 1 };\n}\n",
    "packages/app/package.json": JSON.stringify({ name: "app", version: "1.0.0", type: "module" }),
    "packages/app/src/main.js": "import make from 'mylib';\n\nconst box = make();\n" +
      "export const n = box.size;\n",
    "packages/app/src/local.js":
      "import { helper } from './helper.js';\n\nconst box = helper();\n" +
      "export const n = box.size;\n",
    "packages/app/src/helper.js": "export function helper() {\n  return JSON.parse('{}');\n}\n",
    // A Node built-in without @types/node, and a specifier a comment quotes first: resolved.
    "packages/app/src/node.cjs": '/** see "./helper.js" */\nconst fs = require("fs");\n' +
      'const { helper } = require("./helper.js");\n\nmodule.exports = helper().size;\n',
  });
  try {
    const main = await Deno.readTextFile(join(repo.root, "packages/app/src/main.js"));
    const local = await Deno.readTextFile(join(repo.root, "packages/app/src/local.js"));
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "definition", file: "packages/app/src/main.js", ...locate(main, "size") },
      { id: 2, action: "definition", file: "packages/app/src/local.js", ...locate(local, "size") },
      { id: 3, action: "definition", file: "packages/app/src/node.cjs", line: 5, symbol: "size" },
    ]);
    const unresolved = answer(lines[0]);
    assert.match(unresolved.text, /^No definition found for `size`/);
    assert.equal(unresolved.partial, true, unresolved.text);
    assert.match(unresolved.text, /tsserver cannot resolve the import of "mylib"/);
    for (const line of [lines[1], lines[2]]) {
      const resolved = answer(line);
      assert.match(resolved.text, /^No definition found for `size`/);
      assert.equal(resolved.partial, false, resolved.text);
    }
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("rust-analyzer: a dependency cargo cannot resolve offline makes answers partial with its cargo metadata error, and status shows it", async () => {
  const repo = await hostileRepo({
    "Cargo.toml": '[package]\nname = "broken_deps"\nversion = "0.1.0"\nedition = "2021"\n\n' +
      '[dependencies]\nlspgate-no-such-crate = "1"\n',
    "src/lib.rs": "pub fn greet() -> i32 {\n    1\n}\n\npub fn user() -> i32 {\n    greet()\n}\n",
  });
  try {
    const lib = await Deno.readTextFile(join(repo.root, "src/lib.rs"));
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "definition", file: "src/lib.rs", ...locate(lib, "greet()\n}") },
      { id: 2, action: "status" },
    ], { flags: ["--sandbox", "bwrap"] });
    const { text, partial } = answer(lines[0]);
    assert.equal(partial, true, text);
    assert.match(text, /rust-analyzer could not load all of the project/);
    assert.match(text, /cargo metadata.*lspgate-no-such-crate/);
    assert.match(statusText(lines[1]), /could not load the project \(answers partial\): Failed/);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("clangd without compile commands: a header it cannot find makes answers in that file partial with its reason", async () => {
  const repo = await hostileRepo({
    "include/helper.h": "int helper(int x);\n",
    "src/main.c": '#include "helper.h"\n\nint main(void) {\n  return helper(1);\n}\n',
  });
  try {
    const main = await Deno.readTextFile(join(repo.root, "src/main.c"));
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "diagnostics", file: "src/main.c" },
      { id: 2, action: "definition", file: "src/main.c", ...locate(main, "helper(1)") },
    ]);
    // Without the header's folder on its include path, clangd "finds" only the implicit use.
    const { text, partial } = answer(lines[1]);
    assert.equal(partial, true, text);
    assert.match(text, /clangd could not load all of the project.*'helper\.h' file not found/s);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});
