// What-if through non-relative imports (issue 17): a file importing the changed one by a name the
// project maps (tsconfig `baseUrl`, `paths` inherited through `extends`, the package's own name, a
// Python src layout) has its new error listed; a bare name lspgate cannot resolve that may name
// the changed file makes the answer complete: false, naming it, instead of "0 new diagnostics".
import assert from "node:assert/strict";
import { writtenWorkspace } from "../helpers/workspace.ts";
import { join } from "node:path";
import { expectOk, openSession, textOf } from "../helpers/session.ts";

interface WhatIf {
  added: { file: string; line: number; code?: string | number }[];
  importers: string[];
  complete: boolean;
  unresolved?: { file: string; specifier: string }[];
  elsewhere?: string[];
}

const OPTIONS = {
  strict: true,
  target: "ES2022",
  module: "ESNext",
  moduleResolution: "bundler",
  allowImportingTsExtensions: true,
  noEmit: true,
};

const A_BEFORE = "export function f(): number {\n  return 1;\n}\n";
const A_AFTER = 'export function f(): string {\n  return "one";\n}\n';
const USE = (specifier: string) =>
  `import { f } from "${specifier}";\n\nexport const n: number = f();\n`;

async function whatIf(
  files: Record<string, string>,
  changed: string,
  proposed: string,
): Promise<{ whatIf: WhatIf; text: string }> {
  const root = await writtenWorkspace("lspgate-bare-", files);
  const session = await openSession(root, { role: "subagent" });
  try {
    const answer = expectOk(
      await session.handle({ id: 1, action: "diagnostics", file: changed, content: proposed }),
    );
    assert.equal(await Deno.readTextFile(join(root, changed)), files[changed]);
    return { whatIf: answer.details.whatIf as WhatIf, text: textOf(answer) };
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
}

interface Case {
  name: string;
  files: Record<string, string>;
  changed: string;
  proposed: string;
  importers: string[];
  error: { file: string; line: number; code: string | number };
}

const CASES: Case[] = [
  {
    name: 'tsconfig baseUrl "src", imported as "a"',
    files: {
      "tsconfig.json": JSON.stringify({
        compilerOptions: { ...OPTIONS, baseUrl: "src" },
        include: ["src"],
      }),
      "src/a.ts": A_BEFORE,
      "src/c.ts": USE("a"),
    },
    changed: "src/a.ts",
    proposed: A_AFTER,
    importers: ["src/c.ts"],
    error: { file: "src/c.ts", line: 3, code: 2322 },
  },
  {
    name: "a paths alias with no slash, inherited through extends",
    files: {
      "tsconfig.base.json": JSON.stringify({
        compilerOptions: { ...OPTIONS, paths: { "alpha": ["./src/lib/a.ts"] } },
      }),
      // JSONC, as tsconfig files are written.
      "tsconfig.json": '{\n  // the shared options\n  "extends": "./tsconfig.base.json",\n' +
        '  "include": ["src"],\n}\n',
      "src/lib/a.ts": A_BEFORE,
      "src/app/c.ts": USE("alpha"),
    },
    changed: "src/lib/a.ts",
    proposed: A_AFTER,
    importers: ["src/app/c.ts"],
    error: { file: "src/app/c.ts", line: 3, code: 2322 },
  },
  {
    name: "the package's own name through its exports, and a barrel",
    files: {
      "package.json": JSON.stringify({
        name: "@demo/lib",
        type: "module",
        exports: { ".": { types: "./src/index.ts", default: "./src/index.ts" } },
      }),
      "tsconfig.json": JSON.stringify({ compilerOptions: OPTIONS, include: ["src", "test"] }),
      "src/a.ts": A_BEFORE,
      "src/index.ts": 'export * from "./a.ts";\n',
      "test/c.ts": USE("@demo/lib"),
    },
    changed: "src/a.ts",
    proposed: A_AFTER,
    importers: ["src/index.ts", "test/c.ts"],
    error: { file: "test/c.ts", line: 3, code: 2322 },
  },
  {
    name: "a solution-style tsconfig whose referenced project maps @/*",
    files: {
      "tsconfig.json": JSON.stringify({ files: [], references: [{ path: "./tsconfig.app.json" }] }),
      "tsconfig.app.json": JSON.stringify({
        compilerOptions: { ...OPTIONS, composite: true, paths: { "@/*": ["./src/*"] } },
        include: ["src"],
      }),
      "src/util/a.ts": A_BEFORE,
      "src/main.ts": USE("@/util/a"),
    },
    changed: "src/util/a.ts",
    proposed: A_AFTER,
    importers: ["src/main.ts"],
    error: { file: "src/main.ts", line: 3, code: 2322 },
  },
  {
    name: "deno lsp, a deno.json import map",
    files: {
      "deno.json": JSON.stringify({ imports: { "alpha": "./lib/a.ts" } }),
      "lib/a.ts": A_BEFORE,
      "app/c.ts": USE("alpha"),
    },
    changed: "lib/a.ts",
    proposed: A_AFTER,
    importers: ["app/c.ts"],
    error: { file: "app/c.ts", line: 3, code: 2322 },
  },
  {
    name: "pyright, a package under an extraPaths folder",
    files: {
      "pyproject.toml": '[project]\nname = "bare"\nversion = "0.1.0"\n\n' +
        '[tool.pyright]\nextraPaths = ["lib"]\n',
      "lib/mypkg/__init__.py": "",
      "lib/mypkg/a.py": "def f() -> int:\n    return 1\n",
      "c.py": "from mypkg.a import f\n\nn: int = f()\n",
    },
    changed: "lib/mypkg/a.py",
    proposed: 'def f() -> str:\n    return "one"\n',
    importers: ["c.py"],
    error: { file: "c.py", line: 3, code: "reportAssignmentType" },
  },
  {
    name: "pyright, a src layout imported absolutely over several lines",
    files: {
      "pyproject.toml": '[project]\nname = "bare"\nversion = "0.1.0"\n',
      "src/pkg/__init__.py": "",
      "src/pkg/a.py": "def f() -> int:\n    return 1\n",
      "tests/c.py": "from pkg import (\n    a,\n)\n\nn: int = a.f()\n",
    },
    changed: "src/pkg/a.py",
    proposed: 'def f() -> str:\n    return "one"\n',
    importers: ["tests/c.py"],
    error: { file: "tests/c.py", line: 5, code: "reportAssignmentType" },
  },
];

for (const c of CASES) {
  Deno.test(`what-if through a non-relative import (${c.name}): the importer's new error is listed`, async () => {
    const { whatIf: w, text } = await whatIf(c.files, c.changed, c.proposed);
    assert.deepEqual([...w.importers].sort(), [...c.importers].sort(), text);
    assert.deepEqual(w.added.map((d) => ({ file: d.file, line: d.line, code: d.code })), [
      c.error,
    ], text);
    assert.equal(w.complete, true, text);
  });
}

Deno.test("what-if with a bare import lspgate cannot resolve that may name the file: complete is false and says which", async () => {
  // No baseUrl, paths or package maps "a": neither lspgate nor tsserver can tell what it names
  // (a bundler alias, say), so the answer cannot claim every importer was checked.
  const { whatIf: w, text } = await whatIf(
    {
      "tsconfig.json": JSON.stringify({ compilerOptions: OPTIONS, include: ["src"] }),
      "src/a.ts": A_BEFORE,
      "src/c.ts": USE("a"),
      "src/d.ts": 'import { join } from "node:path";\nimport { g } from "other";\n' +
        "export const p = join(g);\n",
    },
    "src/a.ts",
    A_AFTER,
  );
  assert.equal(w.complete, false, text);
  assert.deepEqual(w.unresolved, [{ file: "src/c.ts", specifier: "a" }], text);
  assert.match(text, /could not resolve "a" \(src\/c\.ts\)/, text);
  // Looked at all the same, as a possible importer.
  assert.deepEqual(w.importers, ["src/c.ts"], text);
});

Deno.test("what-if with a Python import lspgate cannot resolve that may name the file: complete is false", async () => {
  // lib/ is on no search path lspgate knows (nor pyright's): mypkg.a may still be lib/mypkg/a.py.
  const { whatIf: w, text } = await whatIf(
    {
      "pyproject.toml": '[project]\nname = "bare"\nversion = "0.1.0"\n',
      "lib/mypkg/__init__.py": "",
      "lib/mypkg/a.py": "def f() -> int:\n    return 1\n",
      "c.py": "import os\nfrom mypkg.a import f\n\nn: int = f()\n",
    },
    "lib/mypkg/a.py",
    'def f() -> str:\n    return "one"\n',
  );
  assert.equal(w.complete, false, text);
  assert.deepEqual(w.unresolved, [{ file: "c.py", specifier: "mypkg.a" }], text);
  assert.match(text, /could not resolve "mypkg\.a" \(c\.py\)/, text);
});

Deno.test("what-if with an importer in another project of the workspace: complete is false and names it", async () => {
  // packages/app is its own project (its own server): it would read a.ts from the disk, not the
  // proposed text, so the what-if cannot check it and must not call itself complete.
  const tsconfig = JSON.stringify({ compilerOptions: OPTIONS, include: ["src"] });
  const { whatIf: w, text } = await whatIf(
    {
      "packages/lib/package.json": JSON.stringify({
        name: "@demo/lib",
        type: "module",
        exports: "./src/index.ts",
      }),
      "packages/lib/tsconfig.json": tsconfig,
      "packages/lib/src/a.ts": A_BEFORE,
      "packages/lib/src/index.ts": 'export * from "./a.ts";\n',
      "packages/app/package.json": JSON.stringify({ name: "app", type: "module" }),
      "packages/app/tsconfig.json": tsconfig,
      "packages/app/src/c.ts": USE("@demo/lib"),
    },
    "packages/lib/src/a.ts",
    A_AFTER,
  );
  assert.deepEqual(w.importers, ["packages/lib/src/index.ts"], text);
  assert.deepEqual(w.elsewhere, ["packages/app/src/c.ts"], text);
  assert.equal(w.complete, false, text);
  assert.match(text, /Not checked \(in another project, .*\): packages\/app\/src\/c\.ts;/, text);
});
