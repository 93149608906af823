// What-if through a re-exporting file (issue 17): a change to src/a.ts that breaks src/c.ts, which
// imports it only through the barrel src/index.ts (or pkg/__init__.py, or a file that exports what
// it imported in a statement of its own or lists it in __all__), lists c's new error; and
// where there are more importers than are checked, complete is false and the answer names them.
import assert from "node:assert/strict";
import { writtenWorkspace } from "../helpers/workspace.ts";
import { join } from "node:path";
import { expectOk, openSession, textOf } from "../helpers/session.ts";

interface WhatIf {
  added: { file: string; line: number; code?: string | number; severity: string }[];
  importers: string[];
  complete: boolean;
  unchecked?: string[];
}

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    strict: true,
    target: "ES2022",
    module: "ESNext",
    moduleResolution: "bundler",
    allowImportingTsExtensions: true,
    noEmit: true,
  },
  include: ["src"],
});

interface Case {
  name: string;
  files: Record<string, string>;
  changed: string;
  proposed: string;
  through: string[];
  error: { file: string; line: number; code: string | number };
}

const CASES: Case[] = [
  {
    name: "typescript-language-server, export * from a barrel index.ts",
    files: {
      "tsconfig.json": TSCONFIG,
      "src/a.ts": "export function f(): number {\n  return 1;\n}\n",
      "src/index.ts": 'export * from "./a.ts";\n',
      "src/c.ts": 'import { f } from "./index.ts";\n\nexport const n: number = f();\n',
    },
    changed: "src/a.ts",
    proposed: 'export function f(): string {\n  return "one";\n}\n',
    through: ["src/index.ts", "src/c.ts"],
    error: { file: "src/c.ts", line: 3, code: 2322 },
  },
  {
    name: "pyright, a package's __init__.py",
    files: {
      "pyproject.toml": '[project]\nname = "barrel"\nversion = "0.1.0"\n',
      "pkg/a.py": "def f() -> int:\n    return 1\n",
      "pkg/__init__.py": "from .a import f\n\n__all__ = ['f']\n",
      "c.py": "from pkg import f\n\nn: int = f()\n",
    },
    changed: "pkg/a.py",
    proposed: 'def f() -> str:\n    return "one"\n',
    through: ["pkg/__init__.py", "c.py"],
    error: { file: "c.py", line: 3, code: "reportAssignmentType" },
  },
  {
    name: "typescript-language-server, imported then exported in a statement of its own",
    files: {
      "tsconfig.json": TSCONFIG,
      "src/a.ts": "export function f(): number {\n  return 1;\n}\n",
      "src/b.ts": 'import { f } from "./a.ts";\n\nexport { f };\n',
      "src/c.ts": 'import { f } from "./b.ts";\n\nexport const n: number = f();\n',
    },
    changed: "src/a.ts",
    proposed: 'export function f(): string {\n  return "one";\n}\n',
    through: ["src/b.ts", "src/c.ts"],
    error: { file: "src/c.ts", line: 3, code: 2322 },
  },
  {
    name: "pyright, a module listing what it imports in __all__",
    files: {
      "pyproject.toml": '[project]\nname = "barrel"\nversion = "0.1.0"\n',
      "pkg/__init__.py": "",
      "pkg/a.py": "def f() -> int:\n    return 1\n",
      "pkg/b.py": "from pkg.a import f\n\n__all__ = ['f']\n",
      "c.py": "from pkg.b import f\n\nn: int = f()\n",
    },
    changed: "pkg/a.py",
    proposed: 'def f() -> str:\n    return "one"\n',
    through: ["pkg/b.py", "c.py"],
    error: { file: "c.py", line: 3, code: "reportAssignmentType" },
  },
];

for (const c of CASES) {
  Deno.test(`what-if through a re-export (${c.name}): the importer's new error is listed`, async () => {
    const root = await writtenWorkspace("lspgate-barrel-", c.files);
    const session = await openSession(root, { role: "subagent" });
    try {
      const answer = expectOk(
        await session.handle({
          id: 1,
          action: "diagnostics",
          file: c.changed,
          content: c.proposed,
        }),
      );
      const whatIf = answer.details.whatIf as WhatIf;
      const text = textOf(answer);
      assert.deepEqual([...whatIf.importers].sort(), [...c.through].sort(), text);
      assert.deepEqual(
        whatIf.added.map((d) => ({ file: d.file, line: d.line, code: d.code })),
        [c.error],
        text,
      );
      assert.equal(whatIf.complete, true, text);
      assert.equal(
        await Deno.readTextFile(join(root, c.changed)),
        c.files[c.changed],
      );
    } finally {
      await session.close();
      await Deno.remove(root, { recursive: true });
    }
  });
}

Deno.test("what-if with more importers than it checks: complete is false and the rest are named", async () => {
  const files: Record<string, string> = {
    "tsconfig.json": TSCONFIG,
    "src/a.ts": "export function f(): number {\n  return 1;\n}\n",
    "src/index.ts": 'export { f } from "./a.ts";\n',
  };
  const users = Array.from({ length: 10 }, (_, i) => `src/use${String(i).padStart(2, "0")}.ts`);
  for (const user of users) {
    files[user] = 'import { f } from "./index.ts";\n\nexport const n: number = f();\n';
  }
  const root = await writtenWorkspace("lspgate-barrel-", files);
  const session = await openSession(root, { role: "subagent" });
  try {
    const answer = expectOk(
      await session.handle({
        id: 1,
        action: "diagnostics",
        file: "src/a.ts",
        content: 'export function f(): string {\n  return "one";\n}\n',
      }),
    );
    const whatIf = answer.details.whatIf as WhatIf;
    const text = textOf(answer);
    // The barrel first (it imports a directly), then its importers, 8 in all.
    assert.equal(whatIf.importers[0], "src/index.ts", text);
    assert.equal(whatIf.importers.length, 8, text);
    const unchecked = whatIf.unchecked ?? [];
    assert.equal(unchecked.length, 3, text);
    assert.deepEqual(
      [...whatIf.importers.slice(1), ...unchecked].sort(),
      users,
      text,
    );
    assert.equal(whatIf.complete, false, text);
    assert.match(text, /Not checked \(more importers than the 8 checked\): /);
    assert.equal(whatIf.added.length, 7, text);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});
