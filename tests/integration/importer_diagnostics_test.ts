// Diagnostics follow every change lspgate has seen: after a file another file imports changes on
// disk, the importer's diagnostics answer for the new state on the first ask — from servers that
// are pulled (deno lsp, pyright, TypeScript 7's tsc --lsp) and from one that pushes without
// versions and stays silent on files that stay clean (typescript-language-server). The change
// reaches the server as a didChange (the imported file is open) or a didChangeWatchedFiles.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { expectOk, type Success } from "../helpers/session.ts";
import { spanWithin } from "../helpers/locate.ts";
import { ensureTypeScript7 } from "../tools.ts";

/** One server's workspace: a exports `f`, b imports it; `broken` makes b's use a type error. */
interface Case {
  name: string;
  /** A command for the typescript adapter, instead of the one it finds. */
  command?: () => Promise<[string, ...string[]]>;
  files: Record<string, string>;
  a: string;
  b: string;
  good: string;
  broken: string;
  /** An edit of a that leaves b clean. */
  harmless: string;
  /** What b's error covers: a name inside a context that makes it unique in b. */
  errorAt: [context: string, name: string];
  code: string | number;
}

const TS_B = 'import { f } from "./a.ts";\n\nexport const n: number = f();\n';
const TS_A = {
  good: "export function f(): number {\n  return 1;\n}\n",
  broken: 'export function f(): string {\n  return "one";\n}\n',
  harmless: "export function f(): number {\n  return 2;\n}\n\nexport const g = 3;\n",
};

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: "ES2022",
    module: "ESNext",
    moduleResolution: "bundler",
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    lib: ["ES2022"],
  },
  include: ["src"],
});

const CASES: Case[] = [
  {
    name: "typescript-language-server",
    files: { "tsconfig.json": TSCONFIG, "src/b.ts": TS_B },
    a: "src/a.ts",
    b: "src/b.ts",
    ...TS_A,
    errorAt: ["n: number", "n"],
    code: 2322,
  },
  {
    name: "TypeScript 7 (tsc --lsp)",
    command: async () => [join(await ensureTypeScript7(), ".bin", "tsc"), "--lsp", "--stdio"],
    files: { "tsconfig.json": TSCONFIG, "src/b.ts": TS_B },
    a: "src/a.ts",
    b: "src/b.ts",
    ...TS_A,
    errorAt: ["n: number", "n"],
    code: 2322,
  },
  {
    name: "deno lsp",
    files: { "deno.json": "{}\n", "src/b.ts": TS_B },
    a: "src/a.ts",
    b: "src/b.ts",
    ...TS_A,
    errorAt: ["n: number", "n"],
    code: 2322,
  },
  {
    name: "pyright",
    files: {
      "pyproject.toml": '[project]\nname = "ab"\nversion = "0.1.0"\n',
      "b.py": "from a import f\n\nn: int = f()\n",
    },
    a: "a.py",
    b: "b.py",
    good: "def f() -> int:\n    return 1\n",
    broken: 'def f() -> str:\n    return "one"\n',
    harmless: "def f() -> int:\n    return 2\n\n\ng = 3\n",
    errorAt: ["= f()", "f()"],
    code: "reportAssignmentType",
  },
];

interface FileView {
  file: string;
  status: string;
  diagnostics: Record<string, unknown>[];
}

async function workspace(c: Case): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: `lspgate_importer_` }));
  for (const [rel, text] of Object.entries({ ...c.files, [c.a]: c.good })) {
    await Deno.mkdir(join(root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, rel), text);
  }
  return root;
}

async function open(c: Case, root: string): Promise<Session> {
  const config = defaultConfig();
  if (c.command) config.servers = { typescript: { command: await c.command() } };
  return await Session.open({
    root,
    role: "main",
    allowMutations: false,
    adapters: ADAPTERS,
    config,
  });
}

function fileOf(answer: Success): FileView {
  const files = answer.details.files as FileView[];
  assert.equal(files.length, 1, JSON.stringify(files));
  return files[0];
}

for (const c of CASES) {
  Deno.test(`${c.name}: an importer's diagnostics follow its import's edits on disk, first ask`, async (t) => {
    const root = await workspace(c);
    const session = await open(c, root);
    let id = 1;
    const diagnostics = async (file: string) =>
      fileOf(expectOk(await session.handle({ id: id++, action: "diagnostics", file })));
    const clean = (file: string) => ({ file, status: "ok", diagnostics: [] });
    const bText = c.files[c.b];
    const where = spanWithin(bText, ...c.errorAt);
    const expectBroken = (got: FileView) => {
      assert.equal(got.status, "ok", JSON.stringify(got));
      assert.deepEqual(
        got.diagnostics.map((d) => ({
          line: d.line,
          column: d.column,
          endLine: d.endLine,
          endColumn: d.endColumn,
          severity: d.severity,
          code: d.code,
        })),
        [{ ...where, severity: "error", code: c.code }],
      );
    };
    const write = (rel: string, text: string) => Deno.writeTextFile(join(root, rel), text);
    try {
      await t.step("a change of a that b was never opened for shows on b's first ask", async () => {
        // The server starts for a; b is not open anywhere yet.
        assert.deepEqual(await diagnostics(c.a), clean(c.a));
        await write(c.a, c.broken);
        expectBroken(await diagnostics(c.b));
      });

      await t.step("fixing a open in the server (didChange) cleans b on the next ask", async () => {
        // a is open: its change reaches the server as a didChange, b's push is not re-versioned.
        await write(c.a, c.good);
        assert.deepEqual(await diagnostics(c.b), clean(c.b));
      });

      await t.step(
        "breaking a open in the server (didChange) shows in b on the next ask",
        async () => {
          await write(c.a, c.broken);
          expectBroken(await diagnostics(c.b));
          await write(c.a, c.good);
          assert.deepEqual(await diagnostics(c.b), clean(c.b));
        },
      );
    } finally {
      await session.close();
      await Deno.remove(root, { recursive: true });
    }
  });

  Deno.test(`${c.name}: an importer's diagnostics follow a file the server has not open`, async (t) => {
    const root = await workspace(c);
    const session = await open(c, root);
    let id = 1;
    const diagnostics = async (file: string) =>
      fileOf(expectOk(await session.handle({ id: id++, action: "diagnostics", file })));
    const clean = { file: c.b, status: "ok", diagnostics: [] };
    const where = spanWithin(c.files[c.b], ...c.errorAt);
    const write = (text: string) => Deno.writeTextFile(join(root, c.a), text);
    try {
      // Only b is ever opened: a's edits reach the server as didChangeWatchedFiles.
      await t.step("b is clean", async () => {
        assert.deepEqual(await diagnostics(c.b), clean);
      });
      await t.step("a broken on disk: the next ask of b reports the error", async () => {
        await write(c.broken);
        const got = await diagnostics(c.b);
        assert.equal(got.status, "ok", JSON.stringify(got));
        assert.deepEqual(
          got.diagnostics.map((d) => ({
            line: d.line,
            column: d.column,
            endLine: d.endLine,
            endColumn: d.endColumn,
            severity: d.severity,
            code: d.code,
          })),
          [{ ...where, severity: "error", code: c.code }],
        );
      });
      await t.step("a fixed on disk: the next ask of b is clean", async () => {
        await write(c.good);
        assert.deepEqual(await diagnostics(c.b), clean);
      });
      await t.step("a changed harmlessly: b is still clean", async () => {
        await write(c.harmless);
        assert.deepEqual(await diagnostics(c.b), clean);
      });
      await t.step("a broken after a clean spell: the next ask of b reports it", async () => {
        await write(c.broken);
        assert.equal((await diagnostics(c.b)).diagnostics.length, 1);
      });
    } finally {
      await session.close();
      await Deno.remove(root, { recursive: true });
    }
  });
}
