// Checked edits against real servers: a rename, code action or format preview with `check: true`
// shows the diagnostics the edit would add in the files it touches, from the servers' view of the
// edited texts, with the disk untouched; an apply with `if_clean: true` writes only an edit that
// adds no error, and otherwise answers `applied: false`, refused, every file byte-identical.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ADAPTERS, defaultConfig, type Response, Session } from "../../mod.ts";
import { expectError, expectOk, type Success } from "../helpers/session.ts";
import { locate } from "../helpers/locate.ts";

interface Check {
  added: { file: string; severity: string; code?: string | number; message: string }[];
  removed: { file: string; severity: string; code?: string | number }[];
  files: string[];
  unchecked: string[];
  complete: boolean;
  clean: boolean;
}

/** A workspace: a exports `f`, b imports it and declares `m` beside `n` (renaming m to n clashes). */
interface Case {
  name: string;
  files: Record<string, string>;
  a: string;
  b: string;
  /** The declaration of `m` in b, to rename it. */
  mAt: string;
}

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: "ES2022",
    module: "ESNext",
    moduleResolution: "bundler",
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    noUnusedLocals: true,
    lib: ["ES2022"],
  },
  include: ["src"],
});

const CASES: Case[] = [
  {
    name: "typescript-language-server",
    files: {
      "tsconfig.json": TSCONFIG,
      "src/a.ts": "export function f(): number {\n  return 1;\n}\n",
      "src/b.ts": 'import { f } from "./a.ts";\n\nexport const n: number = f();\n' +
        "export const m = 2;\n",
      "src/c.ts": "export function g(): number {\n  const unused = 1;\n  return 2;\n}\n",
    },
    a: "src/a.ts",
    b: "src/b.ts",
    mAt: "const m",
  },
  {
    name: "pyright",
    files: {
      "pyproject.toml": '[project]\nname = "ab"\nversion = "0.1.0"\n',
      "a.py": "def f() -> int:\n    return 1\n",
      "b.py": 'from a import f\n\nn: int = f()\nm: str = "x"\n',
    },
    a: "a.py",
    b: "b.py",
    mAt: "m: str",
  },
];

async function workspace(c: Case): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_checked_" }));
  for (const [rel, text] of Object.entries(c.files)) {
    await Deno.mkdir(join(root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, rel), text);
  }
  return root;
}

async function snapshot(root: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) files.set(path, await Deno.readFile(path));
    }
  };
  await walk(root);
  return files;
}

function checkOf(answer: Success): Check {
  const check = answer.details.check as Check | undefined;
  assert.ok(check, `no details.check in ${JSON.stringify(answer.details)}`);
  return check;
}

for (const c of CASES) {
  Deno.test(`${c.name}: checked renames; if_clean refuses an edit that adds an error`, async (t) => {
    const root = await workspace(c);
    const open = (role: "main" | "subagent") =>
      Session.open({
        root,
        role,
        allowMutations: role === "main",
        adapters: ADAPTERS,
        config: defaultConfig(),
      });
    const main = await open("main");
    const subagent = await open("subagent");
    let id = 1;
    const ask = (session: Session, request: Record<string, unknown>): Promise<Response> =>
      session.handle({ id: id++, ...request });
    const ok = async (session: Session, request: Record<string, unknown>) =>
      expectOk(await ask(session, request), request);
    const bText = c.files[c.b];
    const m = locate(bText, c.mAt);
    const clash = { action: "rename", file: c.b, line: m.line, symbol: "m", new_name: "n" };
    const harmless = { action: "rename", file: c.a, query: "f", new_name: "g" };
    try {
      await t.step(
        "a rename that clashes: check shows the errors it adds, disk untouched",
        async () => {
          const before = await snapshot(root);
          // A preview with its check is a read: a sub-agent may ask for it.
          const answer = await ok(subagent, { ...clash, check: true });
          const check = checkOf(answer);
          assert.deepEqual(check.files, [c.b]);
          assert.equal(check.complete, true, JSON.stringify(check));
          assert.equal(check.clean, false);
          assert.ok(check.added.some((d) => d.severity === "error"), JSON.stringify(check));
          assert.ok(check.added.every((d) => d.file === c.b));
          assert.equal(answer.details.applied, false);
          assert.match(
            answer.content[0].text,
            /Check: the edit would add \d+ diagnostics? in the 1 file/,
          );
          assert.deepEqual(await snapshot(root), before);
          // The servers answer for the disk again.
          const plain = await ok(main, { action: "diagnostics", file: c.b });
          assert.deepEqual(plain.details.files, [{ file: c.b, status: "ok", diagnostics: [] }]);
        },
      );

      await t.step(
        "if_clean refuses it: applied false, refused, every file byte-identical",
        async () => {
          const before = await snapshot(root);
          const answer = await ok(main, { ...clash, apply: true, if_clean: true });
          assert.equal(answer.details.applied, false);
          assert.equal(answer.details.refused, true);
          assert.equal(checkOf(answer).clean, false);
          assert.match(
            answer.content[0].text,
            /^Not applied: the edit would add \d+ errors?, so nothing was written/,
          );
          assert.deepEqual(await snapshot(root), before);
        },
      );

      await t.step("a sub-agent may not apply, if_clean or not; if_clean needs apply", async () => {
        await expectError(
          await ask(subagent, { ...harmless, apply: true, if_clean: true }),
          "ACTION_NOT_ALLOWED",
        );
        const message = expectError(
          await ask(main, { ...harmless, if_clean: true }),
          "INVALID_INPUT",
        );
        assert.match(message, /if_clean goes with apply: true/);
      });

      await t.step("a clean rename: check is clean, and if_clean writes it", async () => {
        const preview = await ok(main, { ...harmless, check: true });
        const check = checkOf(preview);
        assert.deepEqual([...check.files].sort(), [c.a, c.b].sort());
        assert.deepEqual(check.added, []);
        assert.equal(check.clean, true);
        assert.match(preview.content[0].text, /Check: the edit adds no diagnostics in the 2 files/);
        const applied = await ok(main, {
          ...harmless,
          apply: true,
          if_clean: true,
          edit_hash: preview.details.edit_hash,
        });
        assert.equal(applied.details.applied, true, applied.content[0].text);
        assert.equal(applied.details.refused, undefined);
        assert.match(await Deno.readTextFile(join(root, c.a)), /def g\(|function g\(/);
        assert.doesNotMatch(await Deno.readTextFile(join(root, c.b)), /\bf\b/);
        for (const file of [c.a, c.b]) {
          const plain = await ok(main, { action: "diagnostics", file });
          assert.deepEqual(plain.details.files, [{ file, status: "ok", diagnostics: [] }]);
        }
      });
    } finally {
      await subagent.close();
      await main.close();
      await Deno.remove(root, { recursive: true });
    }
  });
}

Deno.test("typescript-language-server: a checked code action and a checked format", async (t) => {
  const c = CASES[0];
  const root = await workspace(c);
  const session = await Session.open({
    root,
    role: "main",
    allowMutations: true,
    adapters: ADAPTERS,
    config: defaultConfig(),
  });
  let id = 1;
  const ok = async (request: Record<string, unknown>) =>
    expectOk(await session.handle({ id: id++, ...request }), request);
  try {
    await t.step("removing an unused declaration: the check says it clears the error", async () => {
      const at = locate(c.files["src/c.ts"], "unused");
      const request = {
        action: "code_actions",
        file: "src/c.ts",
        line: at.line,
        column: at.column,
        query: "Remove unused declaration",
      };
      const before = await snapshot(root);
      const preview = await ok({ ...request, check: true });
      const check = checkOf(preview);
      assert.deepEqual(check.added, [], JSON.stringify(check));
      assert.deepEqual(check.removed.map((d) => [d.file, d.code]), [["src/c.ts", 6133]]);
      assert.equal(check.clean, true);
      assert.deepEqual(await snapshot(root), before);
      const applied = await ok({ ...request, apply: true, if_clean: true });
      assert.equal(applied.details.applied, true, applied.content[0].text);
      assert.doesNotMatch(await Deno.readTextFile(join(root, "src/c.ts")), /unused/);
    });

    await t.step("check and if_clean on code_actions need the action's title", async () => {
      const answer = await session.handle({
        id: id++,
        action: "code_actions",
        file: "src/c.ts",
        line: 1,
        check: true,
      });
      assert.match(expectError(answer, "INVALID_INPUT"), /need query/);
    });

    await t.step("a format with check: clean; if_clean writes it", async () => {
      await Deno.writeTextFile(join(root, "src/d.ts"), "export const  d =   [1,2];\n");
      const preview = await ok({ action: "format", file: "src/d.ts", check: true });
      const check = checkOf(preview);
      assert.deepEqual(check.files, ["src/d.ts"]);
      assert.equal(check.clean, true, JSON.stringify(check));
      assert.equal(await Deno.readTextFile(join(root, "src/d.ts")), "export const  d =   [1,2];\n");
      const applied = await ok({ action: "format", file: "src/d.ts", apply: true, if_clean: true });
      assert.equal(applied.details.applied, true);
      assert.equal(await Deno.readTextFile(join(root, "src/d.ts")), "export const d = [1, 2];\n");
    });
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});
