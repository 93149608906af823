// Workspaces with more than one project or more than one file in question:
// - tests/fixtures/monorepo: a root package.json and two TypeScript packages, packages/a and
//   packages/b, each with its own tsconfig.json and its own `format`. Each package gets its own
//   typescript-language-server, and no answer mixes the two.
// - tests/fixtures/errors: a deno.json workspace with type errors in 3 of the 5 files under src/,
//   a file with only lint findings in tools/, and a notes.txt; diagnostics over "*", a glob and
//   files[]. The files with findings are stored as `*.ts.fixture`, so that this repository's own
//   `deno lint` and `deno check tests/` pass; the test gives them their names in the copy.
// Expected positions come from text matches.
import assert from "node:assert/strict";
import { harness, locationsOf, sorted } from "../helpers/session.ts";
import type { SymbolView } from "../helpers/expect.ts";
import type { TempWorkspace } from "../helpers/workspace.ts";

const A_FORMAT = "packages/a/src/format.ts";
const A_INDEX = "packages/a/src/index.ts";
const B_FORMAT = "packages/b/src/format.ts";
const B_INDEX = "packages/b/src/index.ts";

Deno.test("a monorepo gets one typescript server per package, and answers never cross packages", async (t) => {
  const h = await harness("monorepo");
  try {
    const { ws } = h;
    const aDef = await ws.within(A_FORMAT, "function format(", "format");
    const bDef = await ws.within(B_FORMAT, "function format(", "format");
    const aRefs = sorted([
      aDef,
      await ws.within(A_INDEX, "import { format }", "format"),
      await ws.within(A_INDEX, "[format(120)", "format"),
      await ws.within(A_INDEX, "format(90)", "format"),
    ]);
    const bRefs = sorted([
      bDef,
      await ws.within(B_INDEX, "import { format }", "format"),
      await ws.within(B_INDEX, 'format("shop")', "format"),
      await ws.within(B_INDEX, 'format("sale"', "format"),
      await ws.within(B_INDEX, 'format("bye")', "format"),
    ]);

    await t.step("definition from a's file lands in a, from b's in b", async () => {
      for (
        const [file, context, want] of [
          [A_INDEX, "format(90)", aDef],
          [A_INDEX, "[format(120)", aDef],
          [B_INDEX, 'format("sale"', bDef],
          [B_INDEX, 'format("bye")', bDef],
        ] as const
      ) {
        const call = await ws.within(file, context, "format");
        const answer = await h.ok({
          action: "definition",
          file,
          line: call.line,
          column: call.column,
        });
        assert.deepEqual(locationsOf(answer), [want], `${file} ${context}`);
      }
    });

    await t.step(
      "servers lists two typescript servers, rooted at packages/a and packages/b",
      async () => {
        const answer = await h.ok({ action: "servers" });
        const servers = answer.details.servers as { server: string; root: string; state: string }[];
        assert.deepEqual(
          servers.map((s) => ({ server: s.server, root: s.root, state: s.state }))
            .sort((x, y) => x.root.localeCompare(y.root)),
          [
            { server: "typescript", root: "packages/a", state: "ready" },
            { server: "typescript", root: "packages/b", state: "ready" },
          ],
        );
      },
    );

    await t.step(
      "references in a are exactly a's, never b's; and the other way round",
      async () => {
        const inA = await h.ok({ action: "references", file: A_FORMAT, query: "format" });
        assert.deepEqual(sorted(locationsOf(inA)), aRefs);
        const fromCall = await ws.within(A_INDEX, "format(90)", "format");
        const inAFromCall = await h.ok({
          action: "references",
          file: A_INDEX,
          line: fromCall.line,
          column: fromCall.column,
        });
        assert.deepEqual(sorted(locationsOf(inAFromCall)), aRefs);
        const inB = await h.ok({ action: "references", file: B_FORMAT, query: "format" });
        assert.deepEqual(sorted(locationsOf(inB)), bRefs);
      },
    );

    await t.step("hover in each package shows that package's signature", async () => {
      const a = await h.ok({ action: "hover", file: A_FORMAT, query: "format" });
      assert.match(a.details.text as string, /function format\(cents: number\): string/);
      const b = await h.ok({ action: "hover", file: B_FORMAT, query: "format" });
      assert.match(
        b.details.text as string,
        /function format\(name: string, suffix\?: string\): string/,
      );
    });

    await t.step("a workspace symbol search finds format in both packages", async () => {
      const answer = await h.ok({ action: "symbols", file: "*", query: "format" });
      const found = (answer.details.symbols as SymbolView[])
        .filter((s) => s.name === "format")
        .map((s) => ({ file: s.file, line: s.line, column: s.column, kind: s.kind }));
      assert.deepEqual(sorted(found), [
        { file: aDef.file, line: aDef.line, column: aDef.column, kind: "function" },
        { file: bDef.file, line: bDef.line, column: bDef.column, kind: "function" },
      ]);
    });
  } finally {
    await h.close();
  }
});

/** A diagnostic as `details.files[].diagnostics[]` gives it. */
interface DiagnosticView {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: string;
  message: string;
  source?: string;
  code?: string | number;
}

/** One file of a diagnostics answer. */
interface FileView {
  file: string;
  status: string;
  diagnostics: DiagnosticView[];
  message?: string;
}

const MONEY = "src/money.ts";
const NAMES = "src/names.ts";
const WRONG_TYPE = "src/wrong_type.ts";
const WRONG_CALLS = "src/checks/wrong_calls.ts";
const NO_SUCH = "src/checks/no_such.ts";
const UNUSED = "tools/unused.ts";

/** The diagnostics each file of the errors fixture has, found by text match. */
async function expectedDiagnostics(ws: TempWorkspace) {
  const where = async (file: string, context: string, name: string) => {
    const { file: _file, ...range } = await ws.within(file, context, name);
    return range;
  };
  const leftover = await where(UNUSED, "const leftover", "leftover");
  return {
    [WRONG_TYPE]: [{
      ...await where(WRONG_TYPE, "const stock", "stock"),
      severity: "error",
      source: "deno-ts",
      code: 2322,
      message: "Type 'string' is not assignable to type 'number'.",
    }],
    [WRONG_CALLS]: [{
      ...await where(WRONG_CALLS, 'dollars(120, "EUR")', '"EUR"'),
      severity: "error",
      source: "deno-ts",
      code: 2554,
      message: "Expected 1 arguments, but got 2.",
    }, {
      ...await where(WRONG_CALLS, 'fullName({ first: "Ada" })', '{ first: "Ada" }'),
      severity: "error",
      source: "deno-ts",
      code: 2345,
      message:
        "Argument of type '{ first: string; }' is not assignable to parameter of type 'Name'.\n" +
        "  Property 'last' is missing in type '{ first: string; }' but required in type 'Name'.",
    }],
    [NO_SUCH]: [{
      ...await where(NO_SUCH, "dollars.inCents(", "inCents"),
      severity: "error",
      source: "deno-ts",
      code: 2339,
      message: "Property 'inCents' does not exist on type '(cents: number) => string'.",
    }],
    [MONEY]: [],
    [NAMES]: [],
    // deno lsp reports an unused variable twice: TypeScript's 6133 as a hint (drawn faded), and
    // deno lint's no-unused-vars as a warning.
    [UNUSED]: [{
      ...leftover,
      severity: "hint",
      source: "deno-ts",
      code: 6133,
      message: "'leftover' is declared but its value is never read.",
    }, {
      ...leftover,
      severity: "warning",
      source: "deno-lint",
      code: "no-unused-vars",
      message: "`leftover` is never used\n" +
        "If this is intentional, prefix it with an underscore like `_leftover`",
    }],
  } as Record<string, DiagnosticView[]>;
}

/** Renames the copy's `*.ts.fixture` files (the ones with findings) to their `.ts` names. */
async function unpackErrors(ws: TempWorkspace): Promise<void> {
  for (const file of [WRONG_TYPE, WRONG_CALLS, NO_SUCH, UNUSED]) {
    await Deno.rename(ws.path(`${file}.fixture`), ws.path(file));
  }
}

/** `details.files` in path order, each file's diagnostics in position then severity order. */
function filesOf(details: Record<string, unknown>): FileView[] {
  const files = details.files as FileView[];
  assert.ok(Array.isArray(files), `no details.files in ${JSON.stringify(details)}`);
  return [...files].map((f) => ({
    ...f,
    diagnostics: [...f.diagnostics].sort((a, b) =>
      a.line - b.line || a.column - b.column || a.severity.localeCompare(b.severity)
    ),
  })).sort((a, b) => a.file.localeCompare(b.file));
}

/** The answer expected for `files`, all checked (status ok), keeping diagnostics `kept`. */
function okFiles(
  expected: Record<string, DiagnosticView[]>,
  files: string[],
  kept: (d: DiagnosticView) => boolean = () => true,
): FileView[] {
  return [...files].sort().map((file) => ({
    file,
    status: "ok",
    diagnostics: expected[file].filter(kept),
  }));
}

Deno.test("diagnostics over the workspace, a glob and files[] list every file with its exact findings", async (t) => {
  const h = await harness("errors");
  try {
    await unpackErrors(h.ws);
    const expected = await expectedDiagnostics(h.ws);
    const src = [MONEY, NAMES, WRONG_TYPE, WRONG_CALLS, NO_SUCH];
    const count = (files: string[], kept: (d: DiagnosticView) => boolean = () => true) =>
      files.reduce((n, f) => n + expected[f].filter(kept).length, 0);

    await t.step(
      '"*" checks every TypeScript file: 3 with errors, 2 clean, 1 lint-only',
      async () => {
        const answer = await h.ok({ action: "diagnostics", file: "*" });
        const files = [...src, UNUSED];
        assert.deepEqual(filesOf(answer.details), okFiles(expected, files));
        assert.equal(answer.details.total, 6);
        assert.equal(answer.details.total, count(files));
        assert.equal(answer.details.truncated, false);
        assert.match(answer.content[0].text, /^6 diagnostics in 6 files checked \(2 clean\):/);
        assert.match(answer.content[0].text, /src\/checks\/wrong_calls\.ts: 2 errors/);
      },
    );

    await t.step("a glob checks just the files it matches", async () => {
      const answer = await h.ok({ action: "diagnostics", file: "src/**/*.ts" });
      assert.deepEqual(filesOf(answer.details), okFiles(expected, src));
      assert.equal(answer.details.total, 4);
      const checks = await h.ok({ action: "diagnostics", file: "src/checks/*.ts" });
      assert.deepEqual(filesOf(checks.details), okFiles(expected, [WRONG_CALLS, NO_SUCH]));
      assert.equal(checks.details.total, 3);
    });

    await t.step(
      "files[]: a missing file is an error entry, a .txt is unsupported, the rest ok",
      async () => {
        const answer = await h.ok({
          action: "diagnostics",
          files: [MONEY, "src/gone.ts", "notes.txt", WRONG_TYPE],
        });
        const files = filesOf(answer.details);
        assert.deepEqual(files.map((f) => [f.file, f.status]), [
          ["notes.txt", "unsupported"],
          ["src/gone.ts", "error"],
          [MONEY, "ok"],
          [WRONG_TYPE, "ok"],
        ]);
        const byFile = new Map(files.map((f) => [f.file, f]));
        assert.match(byFile.get("src/gone.ts")!.message ?? "", /^FILE_NOT_FOUND: .*src\/gone\.ts/);
        assert.deepEqual(byFile.get("src/gone.ts")!.diagnostics, []);
        assert.match(byFile.get("notes.txt")!.message ?? "", /\.txt/);
        assert.deepEqual(byFile.get("notes.txt")!.diagnostics, []);
        assert.deepEqual(byFile.get(MONEY)!.diagnostics, []);
        assert.deepEqual(byFile.get(WRONG_TYPE)!.diagnostics, expected[WRONG_TYPE]);
        assert.equal(answer.details.total, 1);
      },
    );

    await t.step('severity "warning" keeps the lint warning and drops the hint', async () => {
      const kept = (d: DiagnosticView) => d.severity === "error" || d.severity === "warning";
      const answer = await h.ok({ action: "diagnostics", file: "*", severity: "warning" });
      const files = [...src, UNUSED];
      assert.deepEqual(filesOf(answer.details), okFiles(expected, files, kept));
      assert.equal(answer.details.total, 5);
    });

    await t.step('severity "error" drops the warning: the lint-only file is clean', async () => {
      const kept = (d: DiagnosticView) => d.severity === "error";
      const answer = await h.ok({ action: "diagnostics", file: "*", severity: "error" });
      const files = [...src, UNUSED];
      assert.deepEqual(filesOf(answer.details), okFiles(expected, files, kept));
      assert.deepEqual(filesOf(answer.details).find((f) => f.file === UNUSED)?.diagnostics, []);
      assert.equal(answer.details.total, 4);
      assert.match(answer.content[0].text, /\(3 clean\) at error or worse:/);
    });
  } finally {
    await h.close();
  }
});
