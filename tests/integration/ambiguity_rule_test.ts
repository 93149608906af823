// One rule for a bare name several symbols share (issue 17), against the real
// typescript-language-server and pyright: a read (hover, definition) answers for the first in file
// order with `ambiguous: true` and the others listed; an edit (rename preview or apply) is
// AMBIGUOUS_SYMBOL listing them, nothing written. Outlines come out in file order (tsserver lists
// them alphabetically), the nearest candidates of SYMBOL_NOT_FOUND are the nearest by name, and the
// `name#N` hint names a line that has an N-th occurrence. Places are found by text match.
import assert from "node:assert/strict";
import { harness, textOf } from "../helpers/session.ts";

const FILE = "src/produce.ts";
// Alphabetically `produce` (the function) comes before `Yard.produce`; in the file, after it.
const SOURCE = `export function zebra(): number {
  return 1;
}

export class Yard {
  produce(): number {
    return 2;
  }
}

export function produce(): number {
  return 3;
}

export const alpha = zebra() + produce();
export const beta = produce() + produce();
`;

/** Every file under `root`, byte for byte. */
async function snapshot(root: string, dir = root, out = new Map<string, string>()) {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await snapshot(root, path, out);
    else if (entry.isFile) out.set(path.slice(root.length + 1), await Deno.readTextFile(path));
  }
  return out;
}

Deno.test("typescript-language-server: a shared name reads the first in file order, edits refuse", async (t) => {
  const h = await harness("typescript", { allowMutations: true });
  try {
    await h.ws.write(FILE, SOURCE);
    const method = await h.ws.within(FILE, "  produce(): number", "produce");
    const fn = await h.ws.within(FILE, "function produce", "produce");
    const expected = [
      {
        name: "Yard.produce",
        kind: "method",
        file: FILE,
        line: method.line,
        column: method.column,
      },
      { name: "produce", kind: "function", file: FILE, line: fn.line, column: fn.column },
    ];

    await t.step("outline order is file order", async () => {
      const outline = await h.ok({ action: "symbols", file: FILE });
      const symbols = outline.details.symbols as { name: string; line: number; column: number }[];
      const names = symbols.map((s) => s.name);
      assert.deepEqual(names, ["zebra", "Yard", "produce", "produce", "alpha", "beta"]);
      const starts = symbols.map((s) => s.line * 1000 + s.column);
      assert.deepEqual(starts, [...starts].sort((a, b) => a - b));
    });

    await t.step("hover answers the first in file order, flagged, the other listed", async () => {
      const answer = await h.ok({ action: "hover", file: FILE, query: "produce" });
      assert.equal(answer.details.ambiguous, true);
      assert.deepEqual(answer.details.candidates, expected);
      assert.match(textOf(answer), /Yard\.produce\(\): number/);
      assert.match(textOf(answer), /names 2 symbols.*Yard\.produce.*, produce \(/s);
    });

    await t.step("definition answers the same one, flagged", async () => {
      const answer = await h.ok({ action: "definition", file: FILE, query: "produce" });
      const [first] = answer.details.locations as { line: number; column: number }[];
      assert.deepEqual([first.line, first.column], [method.line, method.column]);
      assert.equal(answer.details.ambiguous, true);
      assert.deepEqual(answer.details.candidates, expected);
    });

    await t.step("rename preview and apply are AMBIGUOUS_SYMBOL; nothing written", async () => {
      const before = await snapshot(h.ws.root);
      for (const apply of [false, true]) {
        const response = await h.ask({
          action: "rename",
          file: FILE,
          query: "produce",
          new_name: "make",
          apply,
        });
        assert.equal(response.ok, false, JSON.stringify(response));
        if (response.ok) continue;
        assert.equal(response.error.code, "AMBIGUOUS_SYMBOL");
        assert.deepEqual(response.error.data?.candidates, expected);
      }
      assert.deepEqual(await snapshot(h.ws.root), before);
    });

    await t.step("a misspelt name lists the nearest by name first", async () => {
      const response = await h.ask({ action: "hover", file: FILE, query: "prodce" });
      assert.equal(response.ok, false, JSON.stringify(response));
      if (response.ok) return;
      assert.equal(response.error.code, "SYMBOL_NOT_FOUND");
      const names = (response.error.data?.candidates as { name: string }[]).map((c) => c.name);
      assert.deepEqual(names, ["Yard.produce", "produce"]);
    });

    await t.step("the name#N hint names a line that has an N-th occurrence", async () => {
      const alpha = await h.ws.locate(FILE, "export const alpha");
      const response = await h.ask({
        action: "hover",
        file: FILE,
        line: alpha.line - 1,
        symbol: "produce#2",
      });
      assert.equal(response.ok, false, JSON.stringify(response));
      if (response.ok) return;
      assert.equal(response.error.code, "SYMBOL_NOT_FOUND");
      // alpha's line has one `produce`, beta's two: only beta's is named.
      assert.deepEqual(response.error.data?.nearbyLines, [alpha.line + 1]);
      const once = await h.ask({
        action: "hover",
        file: FILE,
        line: alpha.line,
        symbol: "produce#2",
      });
      assert.equal(once.ok, false);
      if (once.ok) return;
      assert.match(once.error.message, /has one `produce`, not 2\. `produce#2` is on line \d+/);
    });
  } finally {
    await h.close();
  }
});

Deno.test("pyright: a bare name the outline has once but the server lists twice is flagged for reads", async () => {
  const h = await harness("python", { allowMutations: true });
  try {
    const file = "zoo/scoped.py";
    await h.ws.write(
      file,
      "def scope() -> int:\n    return 1\n\n\ndef user() -> int:\n    scope = 2\n    return scope\n",
    );
    const fn = await h.ws.within(file, "def scope", "scope");
    const local = await h.ws.within(file, "    scope = 2", "scope");
    const hover = await h.ok({ action: "hover", file, query: "scope" });
    const range = hover.details.range as { line: number; column: number };
    assert.deepEqual([range.line, range.column], [fn.line, fn.column]);
    assert.equal(hover.details.ambiguous, true, JSON.stringify(hover.details));
    const lines = (hover.details.candidates as { line: number }[]).map((c) => c.line);
    assert.deepEqual(lines, [fn.line, local.line]);
    const message = await h.fails(
      { action: "rename", file, query: "scope", new_name: "area" },
      "AMBIGUOUS_SYMBOL",
    );
    assert.match(message, /scope .*user\.scope /);
  } finally {
    await h.close();
  }
});
