// A function's own name cannot be used in another file: files a server left out (another project, a
// build's constraints, a config's include) cannot hold uses of it, so a workspace-wide answer about
// it is complete, and its rename applies. A Python parameter is not one: callers name it
// (`fetch("x", timeout=5)`). Real lspgate over real pyright, gopls, clangd and tsserver, on the
// shapes a helper found answered wrongly.
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

async function ask(root: string, requests: Record<string, unknown>[], flags: string[] = []) {
  const { lines } = await runLspgate(root, requests, { flags });
  return lines as unknown as Line[];
}

/** A compile_commands.json in c/ that lists a.c alone: clangd indexes b.c not. */
async function compileOnlyA(root: string): Promise<void> {
  const entry = { directory: join(root, "c"), file: "a.c", arguments: ["cc", "-c", "a.c"] };
  await Deno.writeTextFile(join(root, "c/compile_commands.json"), JSON.stringify([entry]));
}

const partial = (line: Line) => [line.details?.partial, line.content?.[0].text ?? line.error];

Deno.test("python: a parameter a sibling package passes by keyword is not a local: references are partial and the applied rename is refused; a local stays complete", async () => {
  const repo = await hostileRepo({
    "liba/pyproject.toml": '[project]\nname = "liba"\nversion = "0"\n',
    "liba/liba/__init__.py": "def fetch(url, timeout=3):\n    retries = 2\n" +
      "    return (url, timeout, retries)\n",
    "appb/pyproject.toml": '[project]\nname = "appb"\nversion = "0"\n',
    "appb/appb/main.py": 'from liba import fetch\n\nprint(fetch("x", timeout=5))\n',
  });
  try {
    const text = await Deno.readTextFile(join(repo.root, "liba/liba/__init__.py"));
    const timeout = locate(text, "timeout=3");
    const lines = await ask(repo.root, [
      { id: 1, action: "references", file: "liba/liba/__init__.py", ...timeout },
      { id: 2, action: "references", file: "liba/liba/__init__.py", ...locate(text, "retries") },
      {
        id: 3,
        action: "rename",
        file: "liba/liba/__init__.py",
        ...timeout,
        new_name: "deadline",
        apply: true,
      },
    ], ["--allow-mutations"]);
    assert.equal(lines[0].details?.partial, true, String(partial(lines[0])));
    assert.match(String(lines[0].details?.partialReason), /appb\/appb\/main\.py/);
    assert.deepEqual(partial(lines[1]).slice(0, 1), [false], String(partial(lines[1])));
    assert.equal(lines[2].ok, false);
    assert.equal(lines[2].error?.code, "ACTION_NOT_ALLOWED");
    assert.equal(await Deno.readTextFile(join(repo.root, "liba/liba/__init__.py")), text);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("go, c, typescript: a function's local is complete though files left out hold the word (a build constraint, compile_commands.json, a tsconfig include); an unexported Go name too, beside a nested module", async () => {
  const repo = await hostileRepo({
    "go/go.mod": "module example.com/g\n\ngo 1.21\n",
    "go/count.go": "package g\n\nfunc Count(s string) int {\n\ttotal := 0\n" +
      "\tfor range s {\n\t\ttotal++\n\t}\n\treturn total\n}\n\n" +
      "type stringArray []string\n\nfunc Names() stringArray { return nil }\n",
    "go/count_windows.go": 'package g\n\nvar total = Count("")\n',
    "go/tools/go.mod": "module example.com/tools\n\ngo 1.21\n",
    "go/tools/main.go":
      "package main\n\ntype stringArray []int\n\nfunc main() { _ = stringArray{} }\n",
    "c/a.c": "int words(const char *s) {\n    int count = 0;\n    for (; *s; s++)\n" +
      "        if (*s == ' ') count++;\n    return count + 1;\n}\n",
    "c/b.c": 'int words(const char *s);\n\nint tally(int count) { return count * words(""); }\n',
    "ts/tsconfig.json": JSON.stringify({ compilerOptions: { strict: true }, include: ["src"] }),
    "ts/package.json": JSON.stringify({ name: "p", version: "1.0.0" }),
    "ts/src/sum.ts": "export function add(items: number[]): number {\n  let total = 0;\n" +
      "  for (const it of items) total += it;\n  return total;\n}\n",
    "ts/tests/sum.test.ts": 'import { add } from "../src/sum";\nconst total = add([1, 2]);\n' +
      "console.log(total);\n",
  });
  try {
    await compileOnlyA(repo.root);
    const go = await Deno.readTextFile(join(repo.root, "go/count.go"));
    const c = await Deno.readTextFile(join(repo.root, "c/a.c"));
    const ts = await Deno.readTextFile(join(repo.root, "ts/src/sum.ts"));
    const lines = await ask(repo.root, [
      { id: 1, action: "references", file: "go/count.go", ...locate(go, "total :=") },
      { id: 2, action: "references", file: "go/count.go", ...locate(go, "total++") },
      { id: 3, action: "references", file: "go/count.go", ...locate(go, "stringArray []") },
      { id: 4, action: "references", file: "c/a.c", ...locate(c, "count = 0") },
      { id: 5, action: "references", file: "ts/src/sum.ts", ...locate(ts, "total = 0") },
      // Asked about a name other files can use: still partial.
      { id: 6, action: "references", file: "go/count.go", ...locate(go, "Count(") },
      { id: 7, action: "references", file: "c/a.c", ...locate(c, "words") },
    ]);
    for (const [i, total] of [[0, 3], [1, 3], [2, 2], [3, 3], [4, 3]]) {
      assert.equal(lines[i].details?.partial, false, String(partial(lines[i])));
      assert.equal(lines[i].details?.total, total, String(partial(lines[i])));
    }
    assert.equal(lines[5].details?.partial, true, String(partial(lines[5])));
    assert.match(String(lines[5].details?.partialReason), /count_windows\.go/);
    assert.equal(lines[6].details?.partial, true, String(partial(lines[6])));
    assert.match(String(lines[6].details?.partialReason), /b\.c/);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("names reachable from other files though declared in a function stay partial: a lambda's keyword parameter, a function-local class's attribute, a destructured parameter, a result type's field, a block-scope extern", async () => {
  const repo = await hostileRepo({
    "liba/pyproject.toml": '[project]\nname = "liba"\nversion = "0"\n',
    "liba/liba/lam.py": "def make_fetcher(base):\n" +
      "    fetch = lambda path, timeout=3: (base + path, timeout)\n    return fetch\n\n\n" +
      "def make_config():\n    class Config:\n        level = 1\n\n    return Config\n",
    "appb/pyproject.toml": '[project]\nname = "appb"\nversion = "0"\n',
    "appb/appb/use.py": "from liba.lam import make_config, make_fetcher\n\n" +
      'print(make_fetcher("x")("/a", timeout=10), make_config().level)\n',
    "ts/tsconfig.json": JSON.stringify({ compilerOptions: { strict: true }, include: ["src"] }),
    "ts/package.json": JSON.stringify({ name: "p", version: "1.0.0" }),
    "ts/src/api.ts": "export function config({ verbose, depth }: " +
      "{ verbose: boolean; depth: number }) {\n  return verbose ? depth : 0;\n}\n",
    "ts/tests/api.test.ts": 'import { config } from "../src/api";\n' +
      "console.log(config({ verbose: true, depth: 2 }));\n",
    "go/go.mod": "module example.com/g\n\ngo 1.21\n",
    "go/g.go": 'package g\n\nfunc Get() (r struct{ Name string }) {\n\tr.Name = "x"\n\treturn\n}\n',
    "go/use_windows.go": "package g\n\nvar n = Get().Name\n",
    "c/a.c": "int bump(void) {\n    extern int counter;\n    return ++counter;\n}\n",
    "c/b.c": "int counter = 0;\n",
  });
  try {
    await compileOnlyA(repo.root);
    const lines = await ask(repo.root, [
      { id: 1, action: "references", file: "liba/liba/lam.py", line: 2, symbol: "timeout" },
      { id: 2, action: "references", file: "liba/liba/lam.py", line: 8, symbol: "level" },
      { id: 3, action: "references", file: "ts/src/api.ts", line: 1, symbol: "verbose" },
      { id: 4, action: "references", file: "go/g.go", line: 3, symbol: "Name" },
      { id: 5, action: "references", file: "c/a.c", line: 2, symbol: "counter" },
    ]);
    const why = [
      /appb\/appb\/use\.py/,
      /appb\/appb\/use\.py/,
      /tests\//,
      /use_windows\.go/,
      /b\.c/,
    ];
    for (const [i, line] of lines.entries()) {
      assert.equal(line.details?.partial, true, String(partial(line)));
      assert.match(String(line.details?.partialReason), why[i]);
    }
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});
