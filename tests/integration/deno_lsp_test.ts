// Integration tests against the real `deno lsp` on tests/fixtures/deno (a deno.json project).
// Every expected position is found by text match in the fixture, never counted by hand.
import assert from "node:assert/strict";
import {
  type Harness,
  harness,
  type Location,
  locationsOf,
  sorted,
  textOf,
} from "../helpers/session.ts";
import {
  assertAllClean,
  at,
  callsOf,
  insertBefore,
  itemOf,
  pick,
  pos,
  type SymbolView,
} from "../helpers/expect.ts";

const MAIN = "src/main.ts";
const GREET = "src/greet.ts";
const SHAPES = "src/shapes.ts";
const REPORT = "src/report.ts";

/** The line holding CJK and an emoji before the call to `greet`. */
const CJK_LINE = 'const 名前 = "😀", message = greet(名前);';

Deno.test("deno lsp answers read-only queries with exact locations", async (t) => {
  const h = await harness("deno");
  try {
    const { ws } = h;
    const greetDef = await ws.within(GREET, "function greet(", "greet");
    const cjk = await ws.locate(MAIN, CJK_LINE);

    await t.step("name#2 picks the second occurrence on the line", async () => {
      // The second 名前 is the argument of greet: signature help is inside the parens.
      const answer = await h.ok({
        action: "signature",
        file: MAIN,
        line: cjk.line,
        symbol: "名前#2",
      });
      const signatures = answer.details.signatures as { label: string; activeParameter: number }[];
      assert.equal(signatures.length, 1);
      assert.equal(signatures[0].label, "greet(name: string): string");
      assert.equal(signatures[0].activeParameter, 0);
      assert.match(textOf(answer), /current parameter: name: string/);
      const second = await ws.locate(MAIN, "名前", 2);
      assert.match(textOf(answer), new RegExp(`src/main\\.ts:${second.line}:${second.column}`));
    });

    await t.step("declaration is a plain 'not supported by deno' answer", async () => {
      const answer = await h.ok({
        action: "declaration",
        file: MAIN,
        line: cjk.line,
        symbol: "greet",
      });
      assert.equal(answer.details.supported, false);
      assert.match(textOf(answer), /not supported by deno/);
    });

    await t.step("type_definition of a variable is its class", async () => {
      const spot = await ws.locate(MAIN, "const circle");
      const answer = await h.ok({
        action: "type_definition",
        file: MAIN,
        line: spot.line,
        symbol: "circle",
      });
      assert.deepEqual(locationsOf(answer), [await ws.within(SHAPES, "class Circle ", "Circle")]);
    });

    await t.step("implementation of an interface lists both classes", async () => {
      const answer = await h.ok({ action: "implementation", file: SHAPES, query: "Shape" });
      assert.deepEqual(sorted(locationsOf(answer)), [
        await ws.within(SHAPES, "class Circle ", "Circle"),
        await ws.within(SHAPES, "class Square ", "Square"),
      ]);
    });

    await t.step(
      "implementation of an interface method (query Shape.area) lists both methods",
      async () => {
        const answer = await h.ok({ action: "implementation", file: SHAPES, query: "Shape.area" });
        assert.deepEqual(sorted(locationsOf(answer)), [
          await ws.within(SHAPES, "  area(): number {", "area"), // Circle's
          await ws.within(SHAPES, "  area(): number {", "area", 2), // Square's
        ]);
      },
    );

    const greetRefs: Location[] = sorted([
      greetDef,
      await ws.within(GREET, "=> greet(", "greet"),
      await ws.within(MAIN, "import { greet }", "greet"),
      await ws.within(MAIN, CJK_LINE, "greet"),
      await ws.within(REPORT, "import { greet }", "greet"),
      await ws.within(REPORT, "${greet(", "greet"),
    ]);

    await t.step("references with include_declaration false drop the declaration", async () => {
      const answer = await h.ok({
        action: "references",
        file: GREET,
        query: "greet",
        include_declaration: false,
      });
      assert.deepEqual(
        sorted(locationsOf(answer)),
        greetRefs.filter((l) => !(l.file === GREET && l.line === greetDef.line)),
      );
    });

    await t.step("references by query Class.method find the method and its uses", async () => {
      const answer = await h.ok({ action: "references", file: SHAPES, query: "Circle.area" });
      const areaAt = async (rel: string, context: string, nth = 1) =>
        await ws.within(rel, context, "area", nth);
      assert.deepEqual(
        sorted(locationsOf(answer)),
        sorted([
          await areaAt(REPORT, "shape.area()"),
          await areaAt(SHAPES, "  area(): number;"),
          await areaAt(SHAPES, "  area(): number {"),
          await areaAt(SHAPES, "this.area()"),
          await areaAt(SHAPES, "  area(): number {", 2),
        ]),
      );
    });

    await t.step("hover by query Class.method", async () => {
      const answer = await h.ok({ action: "hover", file: SHAPES, query: "Circle.describe" });
      assert.match(answer.details.text as string, /\(method\) Circle\.describe\(\): string/);
    });

    await t.step("the outline's text indents members under their class", async () => {
      // Where each symbol is, with its container, is checked by the conformance suite.
      const answer = await h.ok({ action: "symbols", file: SHAPES });
      const where = (context: string, name: string) => ws.within(SHAPES, context, name);
      // The text indents members under their class.
      const circle = await where("class Circle ", "Circle");
      const area = await where("  area(): number {", "area");
      assert.match(
        textOf(answer),
        new RegExp(
          `\\nclass Circle \\(${circle.line}:${circle.column}\\)\\n(?: {2}.*\\n)*? {2}method area ` +
            `\\(${area.line}:${area.column}\\)`,
        ),
      );
    });

    await t.step("a workspace symbol is at its name, as in the outline", async () => {
      // An agent feeds line + column back into the next request: they must land on the name,
      // not on the `export` that starts the declaration.
      const search = await h.ok({ action: "symbols", file: "*", query: "greet" });
      const outline = await h.ok({ action: "symbols", file: GREET });
      const find = (answer: typeof search) =>
        (answer.details.symbols as SymbolView[]).find((s) => s.name === "greet");
      assert.deepEqual(
        pick({ ...find(search) }, ["file", "line", "column"]),
        pick({ ...find(outline) }, ["file", "line", "column"]),
      );
      assert.deepEqual(pick({ ...find(search) }, ["file", "line", "column"]), at(greetDef));
    });

    const greetCallers = [
      { name: "greetAll", at: await ws.within(GREET, "function greetAll", "greetAll") },
      { name: "main", at: await ws.within(MAIN, "function main", "main") },
      { name: "report", at: await ws.within(REPORT, "function report", "report") },
    ];
    const greetCallSites: Record<string, Location> = {
      greetAll: await ws.within(GREET, "=> greet(", "greet"),
      main: await ws.within(MAIN, CJK_LINE, "greet"),
      report: await ws.within(REPORT, "${greet(", "greet"),
    };

    await t.step("incoming_calls lists each caller with its call site", async () => {
      const answer = await h.ok({ action: "incoming_calls", file: GREET, query: "greet" });
      assert.deepEqual(itemOf(answer), { name: "greet", kind: "function", ...at(greetDef) });
      assert.deepEqual(
        callsOf(answer, "calls"),
        greetCallers.map(({ name, at: where }) => ({
          name,
          kind: "function",
          ...at(where),
          callSites: [pos(greetCallSites[name])],
        })),
      );
    });

    await t.step("call_hierarchy gives the item, its callers and its callees", async () => {
      const answer = await h.ok({ action: "call_hierarchy", file: GREET, query: "greet" });
      assert.deepEqual(itemOf(answer), { name: "greet", kind: "function", ...at(greetDef) });
      assert.deepEqual(callsOf(answer, "incoming").map((c) => c.name), [
        "greetAll",
        "main",
        "report",
      ]);
      assert.deepEqual(callsOf(answer, "outgoing"), []);
    });

    await t.step("outgoing_calls lists what a function calls, with call sites", async () => {
      const answer = await h.ok({ action: "outgoing_calls", file: REPORT, query: "totalArea" });
      assert.deepEqual(callsOf(answer, "calls"), [{
        name: "area",
        kind: "method",
        ...at(await ws.within(SHAPES, "  area(): number;", "area")),
        // deno lsp puts the call site at the start of the callee expression, `shape.area`.
        callSites: [pos(await ws.within(REPORT, "shape.area()", "shape"))],
      }]);
    });

    await t.step("SYMBOL_NOT_FOUND names the nearby line that has the symbol", async () => {
      const circleLine = await ws.locate(MAIN, "const circle");
      const message = await h.fails(
        { action: "definition", file: MAIN, line: circleLine.line, symbol: "message" },
        "SYMBOL_NOT_FOUND",
      );
      assert.match(message, new RegExp(`not on line ${circleLine.line} of src/main\\.ts`));
      assert.match(message, new RegExp(`It is on line ${cjk.line}\\b`));
    });

    await t.step(
      "SYMBOL_NOT_FOUND names the line with the whole word before a longer word",
      async () => {
        // main's JSDoc says "greeting" above it; the symbol `greet` itself is on the line below.
        const mainLine = await ws.locate(MAIN, "export function main");
        const prose = await ws.locate(MAIN, "Prints a greeting");
        assert.ok(Math.abs(prose.line - mainLine.line) <= 3);
        const message = await h.fails(
          { action: "definition", file: MAIN, line: mainLine.line, symbol: "greet" },
          "SYMBOL_NOT_FOUND",
        );
        assert.match(message, new RegExp(`It is on line ${cjk.line}\\b`));
      },
    );

    await t.step("SYMBOL_NOT_FOUND without a nearby line names none", async () => {
      const message = await h.fails(
        { action: "definition", file: MAIN, line: 1, symbol: "nowhere" },
        "SYMBOL_NOT_FOUND",
      );
      assert.doesNotMatch(message, /It is on line/);
    });

    await t.step("a query naming no symbol is SYMBOL_NOT_FOUND listing what is there", async () => {
      const message = await h.fails(
        { action: "definition", file: SHAPES, query: "Circle.perimeter" },
        "SYMBOL_NOT_FOUND",
      );
      assert.match(message, /Circle\.area/);
    });

    await t.step("aliases from other agents' tools give the canonical answers", async () => {
      const greetCall = await ws.within(MAIN, CJK_LINE, "greet");
      const canonical = await h.ok({
        action: "definition",
        file: MAIN,
        line: greetCall.line,
        column: greetCall.column,
      });
      const alias = await h.ok({
        operation: "goToDefinition",
        filePath: MAIN,
        line: greetCall.line,
        character: greetCall.column,
      });
      assert.deepEqual(alias.details, canonical.details);

      const refs = await h.ok({
        action: "references",
        file: GREET,
        line: greetDef.line,
        column: greetDef.column,
      });
      const findReferences = await h.ok({
        operation: "findReferences",
        filePath: GREET,
        line: greetDef.line,
        character: greetDef.column,
      });
      assert.deepEqual(findReferences.details, refs.details);

      const outline = await h.ok({ action: "symbols", file: SHAPES });
      const documentSymbol = await h.ok({ operation: "documentSymbol", filePath: SHAPES });
      assert.deepEqual(documentSymbol.details, outline.details);

      const search = await h.ok({ action: "symbols", file: "*", query: "greet" });
      const workspaceSymbol = await h.ok({
        operation: "workspaceSymbol",
        filePath: MAIN,
        line: 1,
        character: 1,
        query: "greet",
      });
      assert.deepEqual(workspaceSymbol.details, search.details);

      const incoming = await h.ok({
        action: "incoming_calls",
        file: GREET,
        line: greetDef.line,
        column: greetDef.column,
      });
      const incomingCalls = await h.ok({
        operation: "incomingCalls",
        filePath: GREET,
        line: greetDef.line,
        character: greetDef.column,
      });
      assert.deepEqual(incomingCalls.details, incoming.details);
    });

    await t.step(
      "documentSymbol as peers send it (with line and character) is the outline",
      async () => {
        // Claude Code's and OpenCode's `lsp` tools send filePath, line and character with every
        // operation, documentSymbol included.
        const outline = await h.ok({ action: "symbols", file: SHAPES });
        const documentSymbol = await h.ok({
          operation: "documentSymbol",
          filePath: SHAPES,
          line: 1,
          character: 1,
        });
        assert.deepEqual(documentSymbol.details, outline.details);
      },
    );

    await t.step("status, servers and capabilities describe the running deno lsp", async () => {
      const status = await h.ok({ action: "status" });
      assert.equal(status.details.role, "main");
      assert.equal(status.details.allowMutations, false);
      assert.equal(status.details.root, ws.root);
      const [server] = status.details.servers as Record<string, unknown>[];
      assert.equal(server.server, "deno");
      assert.equal(server.root, ".");
      assert.equal(server.state, "ready");
      assert.equal(typeof server.pid, "number");
      assert.deepEqual(server.command, [Deno.execPath(), "lsp"]);

      const servers = await h.ok({ action: "servers" });
      // The workspace symbol search also started the JSON server, for deno.json.
      assert.deepEqual(
        (servers.details.servers as { server: string; state: string }[])
          .filter((s) => s.server === "deno").map((s) => [s.server, s.state]),
        [["deno", "ready"]],
      );
      const adapters = (servers.details.adapters as { id: string }[]).map((a) => a.id);
      for (const id of ["biome", "clangd", "deno", "gopls", "pyright", "typescript"]) {
        assert.ok(adapters.includes(id), `${id} in ${adapters}`);
      }

      const capabilities = await h.ok({ action: "capabilities", file: MAIN });
      assert.equal(capabilities.details.server, "deno");
      const actions = capabilities.details.actions as Record<string, boolean>;
      for (
        const yes of ["definition", "references", "hover", "symbols", "call_hierarchy", "rename"]
      ) {
        assert.equal(actions[yes], true, yes);
      }
      assert.equal(actions.declaration, false);
      assert.match(textOf(capabilities), /Not supported: .*declaration/);
    });
  } finally {
    await h.close();
  }
});

Deno.test("deno lsp follows files edited on disk between queries", async (t) => {
  const h = await harness("deno", { allowMutations: true });
  try {
    await editsOnDisk(t, h);
  } finally {
    await h.close();
  }
});

async function editsOnDisk(t: Deno.TestContext, h: Harness) {
  const { ws } = h;
  const original = {
    greet: await ws.read(GREET),
    report: await ws.read(REPORT),
    main: await ws.read(MAIN),
  };

  await t.step(
    "a definition moves with lines inserted above it in a file not open yet",
    async () => {
      const call = await ws.within(MAIN, CJK_LINE, "greet");
      const query = { action: "definition", file: MAIN, line: call.line, column: call.column };
      const before = await ws.within(GREET, "function greet(", "greet");
      assert.deepEqual(locationsOf(await h.ok(query)), [before]);
      try {
        await ws.write(
          GREET,
          insertBefore(original.greet, "/** Builds", "// one\n// two\n// three\n"),
        );
        const moved = await ws.within(GREET, "function greet(", "greet");
        assert.equal(moved.line, before.line + 3);
        assert.deepEqual(locationsOf(await h.ok(query)), [moved]);
      } finally {
        await ws.write(GREET, original.greet);
      }
    },
  );

  await t.step("an open file edited on disk is re-synced before the next query", async () => {
    const query = { action: "definition", file: REPORT, query: "totalArea" };
    assert.deepEqual(locationsOf(await h.ok(query)), [
      await ws.within(REPORT, "function totalArea", "totalArea"),
    ]);
    try {
      await ws.write(REPORT, insertBefore(original.report, "/** Adds up", "// one\n// two\n"));
      const moved = await ws.within(REPORT, "function totalArea", "totalArea");
      const answer = await h.ok({
        action: "definition",
        file: REPORT,
        line: moved.line,
        symbol: "totalArea",
      });
      assert.deepEqual(locationsOf(answer), [moved]);
    } finally {
      await ws.write(REPORT, original.report);
    }
  });

  await t.step(
    "a changed signature in an imported file shows in the importer's diagnostics",
    async () => {
      assert.equal((await h.ok({ action: "diagnostics", file: MAIN })).details.total, 0);
      try {
        await ws.write(GREET, original.greet.replace("greet(name: string)", "greet(name: number)"));
        const answer = await h.ok({ action: "diagnostics", file: MAIN });
        const [file] = answer.details.files as { diagnostics: Record<string, unknown>[] }[];
        const argument = await ws.within(MAIN, "greet(名前)", "名前");
        assert.deepEqual(
          file.diagnostics.map((d) => pick(d, ["line", "column", "severity"])),
          [{ ...pos(argument), severity: "error" }],
        );
      } finally {
        await ws.write(GREET, original.greet);
      }
    },
  );

  await t.step("rename with apply writes the new name everywhere expected", async () => {
    const answer = await h.ok({
      action: "rename",
      file: GREET,
      query: "greet",
      new_name: "welcome",
      apply: true,
    });
    assert.equal(answer.details.applied, true);
    assert.equal(answer.details.edits, 6);
    assert.equal(await ws.read(GREET), original.greet.replaceAll(/\bgreet\(/g, "welcome("));
    assert.equal(
      await ws.read(MAIN),
      original.main.replace("import { greet }", "import { welcome }").replace(
        "greet(名前)",
        "welcome(名前)",
      ),
    );
    assert.equal(
      await ws.read(REPORT),
      original.report.replace("import { greet }", "import { welcome }").replace(
        "${greet(",
        "${welcome(",
      ),
    );
    // The JSDoc's "greeting" is prose, not the symbol.
    assert.match(await ws.read(GREET), /Builds a greeting — /);
    // The server sees the renamed files: the new name resolves from the caller.
    const call = await ws.within(MAIN, "welcome(名前)", "welcome");
    const definition = await h.ok({
      action: "definition",
      file: MAIN,
      line: call.line,
      column: call.column,
    });
    assert.deepEqual(locationsOf(definition), [
      await ws.within(GREET, "function welcome(", "welcome"),
    ]);
    const diagnostics = await h.ok({ action: "diagnostics", file: "*" });
    assertAllClean(diagnostics);
  });
}
