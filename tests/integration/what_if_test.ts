// What-if diagnostics against real servers: `diagnostics` with `content` or `edits` reports what
// the server would say about a proposed text, for the file and the files that import it, new and
// gone against the file as it is; run by a read-only sub-agent, it writes nothing, and the
// server's view is the disk's again afterwards — after a timeout and a cancel too, and a plain
// `diagnostics` asked meanwhile never sees the proposed text.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ADAPTERS, defaultConfig, type Response, Session } from "../../mod.ts";
import type { Telemetry } from "../../src/telemetry.ts";
import { serversOff } from "../../src/actions/syntax_only.ts";
import { expectOk } from "../helpers/session.ts";
import { locate, spanWithin } from "../helpers/locate.ts";

/** A workspace where a exports `f` and b imports it, as one server sees it. */
interface Case {
  name: string;
  files: Record<string, string>;
  a: string;
  b: string;
  good: string;
  /** a with a type error of its own, and where the server puts it. */
  selfError: string;
  selfErrorAt: [context: string, name: string];
  /** a changed so that b's use of f is a type error (a itself stays clean). */
  breaksImporter: string;
  /** In `good`, the text an edit replaces with `"one"` to make a's own return a type error. */
  returned: string;
  /** Where b's error is, when a breaks it. */
  importerErrorAt: [context: string, name: string];
  code: string | number;
}

const TS_A = "export function f(): number {\n  return 1;\n}\n";
const TS_B = 'import { f } from "./a.ts";\n\nexport const n: number = f();\n';
const TS = {
  a: "src/a.ts",
  b: "src/b.ts",
  good: TS_A,
  selfError: TS_A + '\nexport const bad: number = "one";\n',
  selfErrorAt: ["bad", "bad"] as [string, string],
  breaksImporter: 'export function f(): string {\n  return "one";\n}\n',
  returned: "1",
  importerErrorAt: ["n: number", "n"] as [string, string],
  code: 2322,
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
    ...TS,
  },
  { name: "deno lsp", files: { "deno.json": "{}\n", "src/b.ts": TS_B }, ...TS },
  {
    name: "pyright",
    files: {
      "pyproject.toml": '[project]\nname = "ab"\nversion = "0.1.0"\n',
      "b.py": "from a import f\n\nn: int = f()\n",
    },
    a: "a.py",
    b: "b.py",
    good: "def f() -> int:\n    return 1\n",
    selfError: 'def f() -> int:\n    return 1\n\n\nbad: int = "one"\n',
    selfErrorAt: ['"one"', '"one"'],
    breaksImporter: 'def f() -> str:\n    return "one"\n',
    returned: "1",
    importerErrorAt: ["= f()", "f()"],
    code: "reportAssignmentType",
  },
];

interface Diagnostic {
  file?: string;
  source?: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: string;
  code?: string | number;
  message: string;
}

interface FileView {
  file: string;
  status: string;
  diagnostics: Diagnostic[];
}

interface WhatIf {
  file: string;
  added: Diagnostic[];
  removed: Diagnostic[];
  unchanged: number;
  importers: string[];
  complete: boolean;
}

type Failure = Extract<Response, { ok: false }>;

/** Telemetry kept in memory: the events' names, and a callback for the next one of a name. */
class Events implements Telemetry {
  events: string[] = [];
  #once = new Map<string, () => void>();
  emit(event: string) {
    this.events.push(event);
    const callback = this.#once.get(event);
    this.#once.delete(event);
    callback?.();
  }
  flush() {
    return Promise.resolve();
  }
  /** Calls `callback` when `event` is next emitted. */
  on(event: string, callback: () => void) {
    this.#once.set(event, callback);
  }
}

async function workspace(c: Case): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_what_if_" }));
  for (const [rel, text] of Object.entries({ ...c.files, [c.a]: c.good })) {
    await Deno.mkdir(join(root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, rel), text);
  }
  return root;
}

/** Every file under `root`, byte for byte. */
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

/** Where `name` is in `text` as a range with its file, to compare with a diagnostic. */
function at(file: string, text: string, context: string, name: string) {
  return { file, ...spanWithin(text, context, name) };
}

function place(d: Diagnostic) {
  return {
    file: d.file,
    line: d.line,
    column: d.column,
    endLine: d.endLine,
    endColumn: d.endColumn,
  };
}

for (const c of CASES) {
  Deno.test(`${c.name}: what-if diagnostics of a proposed text, nothing written, view restored`, async (t) => {
    const root = await workspace(c);
    // A read-only sub-agent asks every question here: what-if is a read action.
    const telemetry = new Events();
    const session = await Session.open({
      root,
      role: "subagent",
      allowMutations: false,
      adapters: ADAPTERS,
      config: defaultConfig(),
      telemetry,
    });
    let id = 1;
    const ask = (request: Record<string, unknown>) => session.handle({ id: id++, ...request });
    const plain = async (file: string): Promise<FileView> => {
      const answer = expectOk(await ask({ action: "diagnostics", file }));
      const files = answer.details.files as FileView[];
      assert.equal(files.length, 1, JSON.stringify(files));
      return files[0];
    };
    const clean = (file: string) => ({ file, status: "ok", diagnostics: [] });
    const propose = async (fields: Record<string, unknown>) => {
      const answer = expectOk(await ask({ action: "diagnostics", file: c.a, ...fields }), fields);
      return { answer, whatIf: answer.details.whatIf as WhatIf };
    };
    /** The disk is as it was, and the servers answer for it again: a and b clean. */
    const untouched = async (before: Map<string, Uint8Array>) => {
      assert.deepEqual(await snapshot(root), before);
      // b first: b's own text is unchanged, so only a restored view of a makes it clean.
      assert.deepEqual(await plain(c.b), clean(c.b));
      assert.deepEqual(await plain(c.a), clean(c.a));
    };
    try {
      await t.step("the files are clean to begin with", async () => {
        assert.deepEqual(await plain(c.a), clean(c.a));
        assert.deepEqual(await plain(c.b), clean(c.b));
      });
      const disk = await snapshot(root);

      await t.step("a proposed type error in the file is new; nothing is written", async () => {
        const { answer, whatIf } = await propose({ content: c.selfError });
        assert.equal(whatIf.file, c.a);
        assert.equal(whatIf.complete, true, JSON.stringify(answer.details));
        assert.deepEqual(whatIf.removed, []);
        assert.deepEqual(
          whatIf.added.map((d) => ({ ...place(d), severity: d.severity, code: d.code })),
          [{ ...at(c.a, c.selfError, ...c.selfErrorAt), severity: "error", code: c.code }],
          JSON.stringify(answer.details),
        );
        // The full list is of the proposed text, the importer checked alongside.
        const files = answer.details.files as FileView[];
        assert.deepEqual(files.map((f) => f.file), [c.a, c.b]);
        assert.deepEqual(whatIf.importers, [c.b]);
        assert.equal(files[0].diagnostics.length, 1);
        assert.match(answer.content[0].text, /1 new diagnostic, 0 gone/);
        assert.match(answer.content[0].text, /nothing was written/);
        await untouched(disk);
      });

      await t.step("a change that breaks the importer shows in the importer", async () => {
        const { answer, whatIf } = await propose({ content: c.breaksImporter });
        const bText = c.files[c.b];
        assert.deepEqual(
          whatIf.added.map((d) => ({ ...place(d), severity: d.severity, code: d.code })),
          [{ ...at(c.b, bText, ...c.importerErrorAt), severity: "error", code: c.code }],
          JSON.stringify(answer.details),
        );
        assert.match(answer.content[0].text, new RegExp(`${c.b} \\(imports ${c.a}\\): 1 error`));
        await untouched(disk);
      });

      await t.step("edits against the file as it is, in code points", async () => {
        const where = locate(c.good, `return ${c.returned}`);
        const column = where.column + "return ".length;
        const edit = {
          line: where.line,
          column,
          endLine: where.line,
          endColumn: column + c.returned.length,
          newText: '"one"',
        };
        const { answer, whatIf } = await propose({ edits: [edit] });
        assert.equal(whatIf.added.length, 1, JSON.stringify(answer.details));
        assert.equal(whatIf.added[0].file, c.a);
        assert.equal(whatIf.added[0].severity, "error");
        assert.equal(whatIf.added[0].line, where.line);
        await untouched(disk);
      });

      await t.step("a plain diagnostics asked meanwhile answers for the disk", async () => {
        const [proposed, meanwhile] = await Promise.all([
          propose({ content: c.selfError }),
          plain(c.a),
        ]);
        assert.equal(proposed.whatIf.added.length, 1);
        assert.deepEqual(meanwhile, clean(c.a));
        await untouched(disk);
      });

      await t.step("a timed-out what-if leaves the server's view equal to the disk", async () => {
        const answer = await ask({
          action: "diagnostics",
          file: c.a,
          content: c.breaksImporter,
          timeout_ms: 1,
        });
        if (answer.ok) {
          // Either nothing was heard in 1 ms, or the answer says what it could not compare.
          const whatIf = answer.details.whatIf as WhatIf;
          assert.ok(!whatIf.complete || whatIf.added.length === 1, JSON.stringify(answer));
        } else assert.equal(answer.error.code, "TIMEOUT", answer.error.message);
        await untouched(disk);
      });

      await t.step("a what-if cancelled at once leaves the view equal to the disk", async () => {
        const target = id++;
        const pending = session.handle({
          id: target,
          action: "diagnostics",
          file: c.a,
          content: c.breaksImporter,
        });
        await ask({ action: "cancel", target });
        const answer: Response = await pending;
        assert.equal(answer.ok, false, JSON.stringify(answer));
        assert.equal((answer as Failure).error.code, "CANCELLED");
        await untouched(disk);
      });

      await t.step(
        "a what-if cancelled while its text is in the server's view: the view is the disk's again",
        async () => {
          const target = id++;
          // Cancelled the moment the proposed text is put in the server's view.
          telemetry.on("overlay.start", () => session.handle({ id: 0, action: "cancel", target }));
          const answer = await session.handle({
            id: target,
            action: "diagnostics",
            file: c.a,
            content: c.breaksImporter,
          });
          assert.equal(answer.ok, false, JSON.stringify(answer));
          assert.equal((answer as Failure).error.code, "CANCELLED");
          // Asked at once: this waits for the view to be restored, and answers for the disk.
          await untouched(disk);
          assert.deepEqual(telemetry.events.slice(-2), ["overlay.start", "overlay.stop"]);
        },
      );

      await t.step(
        "a fix proposed for a broken file: its error is gone, the disk keeps it",
        async () => {
          await Deno.writeTextFile(join(root, c.a), c.selfError);
          const broken = await plain(c.a);
          assert.equal(broken.diagnostics.length, 1, JSON.stringify(broken));
          const { whatIf } = await propose({ content: c.good });
          assert.deepEqual(whatIf.added, []);
          assert.deepEqual(
            whatIf.removed.map((d) => ({ ...place(d), code: d.code })),
            [{ ...at(c.a, c.selfError, ...c.selfErrorAt), code: c.code }],
          );
          // The next plain diagnostics answers for the real file, still broken.
          assert.deepEqual(await plain(c.a), broken);
          await Deno.writeTextFile(join(root, c.a), c.good);
          await untouched(disk);
        },
      );
    } finally {
      await session.close();
      await Deno.remove(root, { recursive: true });
    }
  });
}

Deno.test("what-if input: one file, content or edits, edits inside the file", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_what_if_input_" }));
  await Deno.writeTextFile(join(root, "a.py"), "x = 1\n");
  const session = await Session.open({
    root,
    role: "subagent",
    allowMutations: false,
    adapters: ADAPTERS,
    config: defaultConfig(),
  });
  const fails = async (request: Record<string, unknown>, pattern: RegExp) => {
    const answer = await session.handle({ id: 1, action: "diagnostics", ...request });
    assert.equal(answer.ok, false, JSON.stringify(answer));
    const error = (answer as Failure).error;
    assert.equal(error.code, "INVALID_INPUT", error.message);
    assert.match(error.message, pattern);
  };
  const edit = { line: 1, column: 1, endLine: 1, endColumn: 2, newText: "y" };
  try {
    await fails({ file: "*", content: "x" }, /one file/);
    await fails({ file: "**/*.py", content: "x" }, /one file/);
    await fails({ files: ["a.py"], content: "x" }, /give it as file/);
    await fails({ file: "a.py", content: "x", edits: [edit] }, /not both/);
    await fails({ file: "a.py", edits: [{ ...edit, line: 9, endLine: 9 }] }, /past the end/);
    await fails({ file: "a.py", edits: [{ ...edit, extra: 1 }] }, /extra/);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("what-if with no server (--no-servers): the parse errors of both texts, syntax only", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_what_if_syntax_" }));
  const good = "def f(a, b):\n    return a + b\n";
  await Deno.writeTextFile(join(root, "a.py"), good);
  const config = defaultConfig();
  config.servers = serversOff(config.servers, ADAPTERS);
  const session = await Session.open({
    root,
    role: "subagent",
    allowMutations: false,
    adapters: ADAPTERS,
    config,
  });
  try {
    const broken = "def f(a, b):\n    return a +\n";
    const answer = expectOk(
      await session.handle({ id: 1, action: "diagnostics", file: "a.py", content: broken }),
    );
    const whatIf = answer.details.whatIf as WhatIf;
    assert.equal(answer.details.syntaxOnly, true);
    assert.equal(whatIf.added.length, 1, JSON.stringify(answer.details));
    assert.equal(whatIf.added[0].file, "a.py");
    assert.equal(whatIf.added[0].line, 2);
    assert.deepEqual(whatIf.importers, []);
    assert.match(answer.content[0].text, /Syntax only/);
    assert.equal(await Deno.readTextFile(join(root, "a.py")), good);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("what-if with a linter beside the language server (deno lsp and biome): both judge the proposed text", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_what_if_lint_" }));
  const good = "export const x: number = 1;\nexport const same = x === 1;\n";
  await Deno.writeTextFile(join(root, "deno.json"), "{}\n");
  await Deno.writeTextFile(join(root, "biome.json"), JSON.stringify({ linter: { enabled: true } }));
  await Deno.writeTextFile(join(root, "lint_me.ts"), good);
  const session = await Session.open({
    root,
    role: "subagent",
    allowMutations: false,
    adapters: ADAPTERS,
    config: defaultConfig(),
  });
  const plain = async () =>
    (expectOk(await session.handle({ id: 1, action: "diagnostics", file: "lint_me.ts" })).details
      .files as FileView[])[0];
  try {
    assert.deepEqual(await plain(), { file: "lint_me.ts", status: "ok", diagnostics: [] });
    const proposed = 'export const x: number = "one";\nexport const same = x == 1;\n';
    const answer = expectOk(
      await session.handle({ id: 2, action: "diagnostics", file: "lint_me.ts", content: proposed }),
    );
    const whatIf = answer.details.whatIf as WhatIf;
    assert.deepEqual(
      whatIf.added.map((d) => [d.source, d.code, d.line]).sort(),
      [["biome", "lint/suspicious/noDoubleEquals", 2], ["deno-ts", 2322, 1]],
      JSON.stringify(answer.details),
    );
    assert.equal(await Deno.readTextFile(join(root, "lint_me.ts")), good);
    // Both servers' views are the disk's again.
    assert.deepEqual(await plain(), { file: "lint_me.ts", status: "ok", diagnostics: [] });
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});
