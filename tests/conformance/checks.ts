// The conformance checks: each asks one row's server the same question any agent would, and
// compares the answer with the row's expectations, exactly.
import assert from "node:assert/strict";
import { changesFor, expectSymbol, sortedChanges, type SymbolView } from "../helpers/expect.ts";
import { lineText, type TextSpan } from "../helpers/locate.ts";
import {
  type Harness,
  type Location,
  locationsOf,
  sorted,
  type Success,
} from "../helpers/session.ts";
import type { TempWorkspace } from "../helpers/workspace.ts";
import type { CheckName, Row, Spot, SymbolSpot } from "./row.ts";

/** A Spot found in the workspace: `details.locations[]`-shaped. */
export type Found = TextSpan & { file: string };

/** Where a Spot is in the workspace as it is on disk now. */
export function find(ws: TempWorkspace, spot: Spot): Promise<Found> {
  return ws.within(spot.file, spot.context, spot.name ?? spot.context, spot.nth ?? 1);
}

function findAll(ws: TempWorkspace, spots: Spot[]): Promise<Found[]> {
  return Promise.all(spots.map((s) => find(ws, s)));
}

function start({ file, line, column }: Found) {
  return { file, line, column };
}

/** The answer must not be one the server gave before it had loaded the project. */
function assertComplete(answer: Success) {
  assert.notEqual(
    answer.details.partial,
    true,
    `the server was still loading the project: ${answer.content[0].text}`,
  );
}

async function definitionAt(h: Harness, at: Found, how: "symbol" | "column") {
  const text = await h.ws.read(at.file);
  const name = [...lineText(text, at.line)].slice(at.column - 1, at.endColumn - 1).join("");
  const request = how === "symbol"
    ? { action: "definition", file: at.file, line: at.line, symbol: name }
    : { action: "definition", file: at.file, line: at.line, column: at.column };
  return await h.ok(request);
}

/** How many times `name` occurs on `at`'s line. */
async function occurrences(h: Harness, at: Found, name: string): Promise<number> {
  return lineText(await h.ws.read(at.file), at.line).split(name).length - 1;
}

type CheckFn = (h: Harness, row: Row) => Promise<void>;

/** Each check's title and body, by name (CHECKS gives the order). */
export const CHECK_FNS: Record<CheckName, { title: string; run: CheckFn }> = {
  coldStart: {
    title: "cold start: the first request, a cross-file definition, lands on the definition",
    async run(h, row) {
      const { from, to } = row.coldStart!;
      const at = await find(h.ws, from);
      const name = from.name ?? from.context;
      const how = (await occurrences(h, at, name)) === 1 ? "symbol" : "column";
      const answer = await definitionAt(h, at, how);
      assertComplete(answer);
      const expected = await findAll(h.ws, to);
      assert.ok(expected.some((l) => l.file !== at.file), "the definition is in another file");
      assert.deepEqual(sorted(locationsOf(answer)), sorted(expected), answer.content[0].text);
      const capabilities = await h.ok({ action: "capabilities", file: at.file });
      assert.equal(capabilities.details.server, row.server);
      if (row.encoding) assert.equal(capabilities.details.encoding, row.encoding);
    },
  },

  unicode: {
    title: "a column after CJK and an emoji, in code points, lands on the symbol and back",
    async run(h, row) {
      const { from, to } = row.unicode!;
      const at = await find(h.ws, from);
      const before = [...lineText(await h.ws.read(at.file), at.line)].slice(0, at.column - 1);
      assert.ok(
        before.some((c) => c.codePointAt(0)! > 0x7f),
        "the fixture line has non-ASCII text before the symbol",
      );
      const answer = await definitionAt(h, at, "column");
      assert.deepEqual(sorted(locationsOf(answer)), sorted(await findAll(h.ws, to)));
      // The way back: a range the server gives is converted to code points too.
      const inside = at.column + Math.min(2, at.endColumn - at.column - 1);
      const hover = await h.ok({ action: "hover", file: at.file, line: at.line, column: inside });
      if (hover.details.range !== null && hover.details.range !== undefined) {
        const { file: _file, ...range } = at;
        assert.deepEqual(hover.details.range, range);
      }
    },
  },

  references: {
    title: "references across files give the exact set, the declaration included",
    async run(h, row) {
      const { at: where, expect } = row.references!;
      const at = await find(h.ws, where);
      const answer = await h.ok({
        action: "references",
        file: at.file,
        line: at.line,
        column: at.column,
      });
      assertComplete(answer);
      const expected = sorted(await findAll(h.ws, expect));
      assert.deepEqual(sorted(locationsOf(answer)), expected);
      assert.equal(answer.details.total, expected.length);
    },
  },

  hover: {
    title: "hover shows the signature and the documentation",
    async run(h, row) {
      const { at: where, matches } = row.hover!;
      const at = await find(h.ws, where);
      const answer = await h.ok({
        action: "hover",
        file: at.file,
        line: at.line,
        column: at.column,
      });
      const text = answer.details.text as string;
      for (const pattern of matches) assert.match(text, pattern);
    },
  },

  symbols: {
    title: "the outline has each symbol at its name, nested through container",
    async run(h, row) {
      const { file, expect } = row.symbols!;
      const answer = await h.ok({ action: "symbols", file });
      const symbols = answer.details.symbols as SymbolView[];
      for (const want of expect) {
        expectSymbol(symbols, { ...want, ...start(await find(h.ws, want.at)) });
      }
    },
  },

  workspaceSymbols: {
    title: 'workspace symbols (file "*" + query) find each symbol at its name',
    async run(h, row) {
      const { query, expect } = row.workspaceSymbols!;
      const answer = await h.ok({ action: "symbols", file: "*", query });
      assertComplete(answer);
      const symbols = answer.details.symbols as SymbolView[];
      const exact = symbols.filter((s) => s.name === query);
      assert.deepEqual(symbols.slice(0, exact.length), exact, "exact names rank first");
      for (const want of expect) await expectFound(h, symbols, want);
    },
  },

  rename: {
    title: "rename preview lists every edit and writes nothing",
    async run(h, row) {
      const { at: where, newName, expect } = row.rename!;
      const at = await find(h.ws, where);
      const targets = await findAll(h.ws, expect ?? row.references?.expect ?? []);
      assert.ok(targets.length > 0, "the row names the rename's edits (or its references)");
      const files = [...new Set(targets.map((t) => t.file))];
      const before = await Promise.all(files.map((f) => h.ws.read(f)));
      const answer = await h.ok({
        action: "rename",
        file: at.file,
        line: at.line,
        column: at.column,
        new_name: newName,
      });
      assert.equal(answer.details.applied, false);
      assert.deepEqual(
        sortedChanges(answer.details.changes),
        changesFor(targets as Location[], newName),
      );
      assert.deepEqual(await Promise.all(files.map((f) => h.ws.read(f))), before);
    },
  },

  diagnostics: {
    title: "diagnostics: clean, an error after an on-disk edit, clean again after the fix",
    async run(h, row) {
      const { file, replace: [from, to], error, message, code } = row.diagnostics!;
      const clean = [{ file, status: "ok", diagnostics: [] }];
      const ask = async () => (await h.ok({ action: "diagnostics", file })).details.files;
      assert.deepEqual(await ask(), clean, "the fixture file starts clean");
      const original = await h.ws.read(file);
      assert.ok(original.includes(from), `${file} holds ${JSON.stringify(from)}`);
      try {
        await h.ws.write(file, original.replace(from, to));
        const files = await ask() as {
          status: string;
          diagnostics: (Record<string, unknown> & { severity: string })[];
        }[];
        assert.equal(files[0].status, "ok", JSON.stringify(files));
        const errors = files[0].diagnostics.filter((d) => d.severity === "error");
        const where = await find(h.ws, error);
        assert.deepEqual(
          errors.map(({ line, column, endLine, endColumn }) => ({
            line,
            column,
            endLine,
            endColumn,
          })),
          [{
            line: where.line,
            column: where.column,
            endLine: where.endLine,
            endColumn: where.endColumn,
          }],
          JSON.stringify(errors),
        );
        if (message) assert.match(errors[0].message as string, message);
        if (code !== undefined) assert.equal(errors[0].code, code);
      } finally {
        await h.ws.write(file, original);
      }
      assert.deepEqual(await ask(), clean, "clean again once the edit is undone");
    },
  },
};

async function expectFound(h: Harness, symbols: SymbolView[], want: SymbolSpot) {
  const at = start(await find(h.ws, want.at));
  const found = symbols.filter((s) =>
    s.name === want.name && s.file === at.file && s.line === at.line && s.column === at.column
  );
  assert.equal(
    found.length,
    1,
    `one ${want.name} at ${at.file}:${at.line}:${at.column} expected in ` +
      JSON.stringify(
        symbols.map((s) => `${s.container ?? ""}/${s.name} ${s.file}:${s.line}:${s.column}`),
      ),
  );
  assert.deepEqual(
    { kind: found[0].kind, container: found[0].container },
    { kind: want.kind, container: want.container },
  );
}
