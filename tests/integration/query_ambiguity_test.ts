// `query` never silently answers for another symbol, against the real typescript-language-server and
// pyright: a container that does not exist is SYMBOL_NOT_FOUND naming the nearest symbols; a bare
// name several symbols share answers a read for the first with a note programs can read, and refuses
// an edit, preview or apply (a code action's title included), with AMBIGUOUS_SYMBOL (nothing written). Expected places come from text matches.
import assert from "node:assert/strict";
import { type Harness, harness, textOf } from "../helpers/session.ts";

const SHAPES = "src/shapes.ts";
const SHAPES_TS = `export class Base {
  area(): number {
    return 0;
  }
}

export class Circle extends Base {
  constructor(readonly r: number) {
    super();
  }

  override area(): number {
    return Math.PI * this.r * this.r;
  }
}

export function total(shapes: Base[]): number {
  return shapes.reduce((sum, shape) => sum + shape.area(), 0);
}
`;

/** A candidate as errors and notes list it. */
interface Candidate {
  name: string;
  kind: string;
  file: string;
  line: number;
  column: number;
}

/** Every file of the workspace, byte for byte. */
async function snapshot(root: string, dir = root, out = new Map<string, string>()) {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await snapshot(root, path, out);
    else if (entry.isFile) out.set(path.slice(root.length + 1), await Deno.readTextFile(path));
  }
  return out;
}

/** The candidate `name` at the `nth` occurrence of `needle` in `file`. */
async function candidateAt(
  h: Harness,
  file: string,
  name: string,
  context: string,
  needle: string,
  kind = "method",
): Promise<Candidate> {
  const at = await h.ws.within(file, context, needle);
  return { name, kind, file, line: at.line, column: at.column };
}

Deno.test("typescript-language-server: a query names one symbol, or says which it could be", async (t) => {
  const h = await harness("typescript", { allowMutations: true });
  try {
    await h.ws.write(SHAPES, SHAPES_TS);
    const base = await candidateAt(h, SHAPES, "Base.area", "  area(): number", "area");
    const circle = await candidateAt(h, SHAPES, "Circle.area", "override area()", "area");

    await t.step(
      "a container that does not exist is SYMBOL_NOT_FOUND naming the nearest",
      async () => {
        for (const action of ["hover", "definition", "references"]) {
          const response = await h.ask({ action, file: SHAPES, query: "Nope.area" });
          assert.equal(response.ok, false, JSON.stringify(response));
          if (response.ok) continue;
          assert.equal(response.error.code, "SYMBOL_NOT_FOUND");
          assert.match(response.error.message, /No symbol `Nope\.area` in src\/shapes\.ts/);
          assert.match(response.error.message, /Base\.area.*Circle\.area/);
          assert.deepEqual(response.error.data?.candidates, [base, circle]);
        }
      },
    );

    await t.step("a wrong container is not rescued by the name alone (Circle.total)", async () => {
      const message = await h.fails(
        { action: "hover", file: SHAPES, query: "Circle.total" },
        "SYMBOL_NOT_FOUND",
      );
      assert.match(message, /Nearest: total/);
    });

    await t.step("a bare shared name answers a read for the first, with a note", async () => {
      const answer = await h.ok({ action: "hover", file: SHAPES, query: "area" });
      assert.match(textOf(answer), /Base\.area\(\): number/);
      assert.match(textOf(answer), /Note: `area` names 2 symbols in src\/shapes\.ts/);
      assert.equal(answer.details.ambiguous, true);
      assert.deepEqual(answer.details.candidates, [base, circle]);
      const range = answer.details.range as { line: number; column: number };
      assert.deepEqual([range.line, range.column], [base.line, base.column]);
    });

    await t.step("a qualified name answers for that symbol alone, with no note", async () => {
      const answer = await h.ok({ action: "hover", file: SHAPES, query: "Circle.area" });
      assert.match(textOf(answer), /Circle\.area\(\): number/);
      assert.ok(!("ambiguous" in answer.details), JSON.stringify(answer.details));
      assert.doesNotMatch(textOf(answer), /Note:/);
    });

    await t.step("a rename preview of a shared name is AMBIGUOUS_SYMBOL too", async () => {
      const response = await h.ask({
        action: "rename",
        file: SHAPES,
        query: "area",
        new_name: "size",
      });
      assert.equal(response.ok, false, JSON.stringify(response));
      if (response.ok) return;
      assert.equal(response.error.code, "AMBIGUOUS_SYMBOL");
      assert.deepEqual(response.error.data?.candidates, [base, circle]);
    });

    await t.step(
      "a rename apply of a shared name is AMBIGUOUS_SYMBOL; nothing written",
      async () => {
        const before = await snapshot(h.ws.root);
        const response = await h.ask({
          action: "rename",
          file: SHAPES,
          query: "area",
          new_name: "size",
          apply: true,
        });
        assert.equal(response.ok, false, JSON.stringify(response));
        if (response.ok) return;
        assert.equal(response.error.code, "AMBIGUOUS_SYMBOL");
        assert.match(
          response.error.message,
          /Base\.area \(src\/shapes\.ts:2:3\), Circle\.area \(src\/shapes\.ts:12:12\)/,
        );
        assert.deepEqual(response.error.data?.candidates, [base, circle]);
        assert.deepEqual(await snapshot(h.ws.root), before);
      },
    );

    await t.step(
      "a code action title several actions share: apply and preview refused, a whole title previews",
      async () => {
        await h.ws.write(
          "src/unused.ts",
          "export function f(): number {\n  const first = 1; const second = 2;\n  return 0;\n}\n",
        );
        const at = { file: "src/unused.ts", line: 2, column: 1, end_line: 2, end_column: 37 };
        const before = await snapshot(h.ws.root);
        const refused = await h.ask({
          action: "code_actions",
          ...at,
          query: "Remove unused",
          apply: true,
        });
        assert.equal(refused.ok, false, JSON.stringify(refused));
        if (refused.ok) return;
        assert.equal(refused.error.code, "AMBIGUOUS_SYMBOL");
        assert.deepEqual(refused.error.data?.candidates, [
          "Remove unused declaration for: 'first'",
          "Remove unused declaration for: 'second'",
        ]);
        assert.deepEqual(await snapshot(h.ws.root), before);
        const unpicked = await h.ask({ action: "code_actions", ...at, query: "Remove unused" });
        assert.equal(unpicked.ok, false, JSON.stringify(unpicked));
        if (unpicked.ok) return;
        assert.equal(unpicked.error.code, "AMBIGUOUS_SYMBOL");
        assert.match(
          unpicked.error.message,
          /`Remove unused declaration for: 'first'`; `Remove unused declaration for: 'second'`/,
        );
        assert.deepEqual(unpicked.error.data?.candidates, [
          "Remove unused declaration for: 'first'",
          "Remove unused declaration for: 'second'",
        ]);
        // The whole title of one (case aside) picks it; the preview is its edit, nothing written.
        const second = await h.ok({
          action: "code_actions",
          ...at,
          query: "remove unused declaration for: 'second'",
        });
        assert.equal(second.details.action, "Remove unused declaration for: 'second'");
        assert.equal(second.details.ambiguous, undefined);
        assert.equal(second.details.applied, false);
        assert.equal(second.details.edits, 1);
        assert.deepEqual(await snapshot(h.ws.root), before);
      },
    );
  } finally {
    await h.close();
  }
});

Deno.test("pyright: a query names one symbol, or says which it could be", async (t) => {
  const h = await harness("python", { allowMutations: true });
  try {
    const ANIMALS = "zoo/animals.py";
    // Animal's, Dog's and Cat's `def speak`, in the order of the file.
    const speak = async (name: string, nth: number): Promise<Candidate> => {
      const at = await h.ws.within(ANIMALS, "def speak", "speak", nth);
      return { name, kind: "method", file: ANIMALS, line: at.line, column: at.column };
    };
    const expected = [
      await speak("Animal.speak", 1),
      await speak("Dog.speak", 2),
      await speak("Cat.speak", 3),
    ];
    const catDef = expected[2];

    await t.step(
      "a container that does not exist is SYMBOL_NOT_FOUND naming the nearest",
      async () => {
        const response = await h.ask({ action: "definition", file: ANIMALS, query: "Nope.speak" });
        assert.equal(response.ok, false, JSON.stringify(response));
        if (response.ok) return;
        assert.equal(response.error.code, "SYMBOL_NOT_FOUND");
        assert.match(response.error.message, /Animal\.speak.*Dog\.speak.*Cat\.speak/);
        assert.deepEqual(response.error.data?.candidates, expected);
      },
    );

    await t.step("a bare shared name answers a read for the first, with a note", async () => {
      const answer = await h.ok({ action: "hover", file: ANIMALS, query: "speak" });
      assert.match(textOf(answer), /Note: `speak` names 3 symbols in zoo\/animals\.py/);
      assert.equal(answer.details.ambiguous, true);
      assert.deepEqual(answer.details.candidates, expected);
    });

    await t.step("a qualified name answers for that one (Cat.speak)", async () => {
      const answer = await h.ok({ action: "hover", file: ANIMALS, query: "Cat.speak" });
      const range = answer.details.range as { line: number; column: number };
      assert.deepEqual([range.line, range.column], [catDef.line, catDef.column]);
      assert.ok(!("ambiguous" in answer.details));
    });

    await t.step(
      "a rename apply of a shared name is AMBIGUOUS_SYMBOL; nothing written",
      async () => {
        const before = await snapshot(h.ws.root);
        const message = await h.fails(
          { action: "rename", file: ANIMALS, query: "speak", new_name: "talk", apply: true },
          "AMBIGUOUS_SYMBOL",
        );
        assert.match(message, /Animal\.speak .*Dog\.speak .*Cat\.speak /);
        assert.deepEqual(await snapshot(h.ws.root), before);
      },
    );
  } finally {
    await h.close();
  }
});
