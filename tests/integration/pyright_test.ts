// Integration tests against the real pyright-langserver on tests/fixtures/python (a
// pyproject.toml project with a package). Expected positions come from text matches.
import assert from "node:assert/strict";
import { harness, type Location, locationsOf, sorted, textOf } from "../helpers/session.ts";
import { assertAllClean, at, callsOf, insertBefore, itemOf, pick, pos } from "../helpers/expect.ts";

const MAIN = "main.py";
const GREETING = "zoo/greeting.py";
const ANIMALS = "zoo/animals.py";
const REPORT = "zoo/report.py";
const INIT = "zoo/__init__.py";

/** The line holding CJK and an emoji before the call to `greet`. */
const CJK_LINE = '名前 = "😀"; message = greet(名前)';

Deno.test("pyright answers read-only queries with exact locations", async (t) => {
  const h = await harness("python");
  try {
    const { ws } = h;
    const greetDef = await ws.within(GREETING, "def greet(", "greet");
    const cjk = await ws.locate(MAIN, CJK_LINE);

    await t.step("name#2 picks the second occurrence on the line", async () => {
      const answer = await h.ok({
        action: "signature",
        file: MAIN,
        line: cjk.line,
        symbol: "名前#2",
      });
      const [signature] = answer.details.signatures as {
        label: string;
        parameters: string[];
        activeParameter: number;
      }[];
      assert.equal(signature.label, "(name: str) -> str");
      assert.deepEqual(signature.parameters, ["name: str"]);
      assert.equal(signature.activeParameter, 0);
      assert.match(textOf(answer), /Builds a greeting — the first thing every visitor hears\./);
    });

    await t.step("declaration is supported by pyright and points at the def", async () => {
      const answer = await h.ok({
        action: "declaration",
        file: MAIN,
        line: cjk.line,
        symbol: "greet",
      });
      assert.deepEqual(locationsOf(answer), [greetDef]);
    });

    await t.step("type_definition of a variable is its class", async () => {
      const line = (await ws.locate(MAIN, "rex = Dog")).line;
      const answer = await h.ok({ action: "type_definition", file: MAIN, line, symbol: "rex" });
      assert.deepEqual(locationsOf(answer), [await ws.within(ANIMALS, "class Dog(", "Dog")]);
    });

    await t.step("implementation is a plain 'not supported by pyright' answer", async () => {
      const answer = await h.ok({ action: "implementation", file: ANIMALS, query: "Animal.speak" });
      assert.equal(answer.details.supported, false);
      assert.match(textOf(answer), /not supported by pyright/);
    });

    const greetRefs: Location[] = sorted([
      greetDef,
      await ws.within(GREETING, "[greet(", "greet"),
      await ws.within(MAIN, "import greet", "greet"),
      await ws.within(MAIN, CJK_LINE, "greet"),
      await ws.within(INIT, "import greet", "greet"),
      await ws.within(INIT, '"greet"', "greet"), // pyright counts the name in __all__
      await ws.within(REPORT, "import greet", "greet"),
      await ws.within(REPORT, "{greet(", "greet"),
    ]);

    await t.step("references with include_declaration false drop the declaration", async () => {
      const answer = await h.ok({
        action: "references",
        file: GREETING,
        query: "greet",
        include_declaration: false,
      });
      assert.deepEqual(
        sorted(locationsOf(answer)),
        greetRefs.filter((l) => !(l.file === GREETING && l.line === greetDef.line)),
      );
    });

    await t.step("references by query Class.method", async () => {
      const answer = await h.ok({ action: "references", file: ANIMALS, query: "Dog.speak" });
      assert.deepEqual(sorted(locationsOf(answer)), [
        await ws.within(ANIMALS, "    def speak(", "speak", 2),
        await ws.within(ANIMALS, "self.speak()", "speak"),
      ]);
    });

    await t.step("hover by query Class.method", async () => {
      const answer = await h.ok({ action: "hover", file: ANIMALS, query: "Dog.describe" });
      assert.match(answer.details.text as string, /\(method\) def describe\(self/);
      const { file: _file, ...range } = await ws.within(ANIMALS, "def describe(", "describe");
      assert.deepEqual(answer.details.range, range);
    });

    await t.step("incoming_calls lists each caller with its call site", async () => {
      const answer = await h.ok({ action: "incoming_calls", file: GREETING, query: "greet" });
      assert.deepEqual(itemOf(answer), { name: "greet", kind: "function", ...at(greetDef) });
      assert.deepEqual(callsOf(answer, "calls"), [
        {
          name: "greet_all",
          kind: "function",
          ...at(await ws.within(GREETING, "def greet_all", "greet_all")),
          callSites: [pos(await ws.within(GREETING, "[greet(", "greet"))],
        },
        // A call at the top level of a module comes from the module itself, named by its file.
        {
          name: "main.py",
          kind: "module",
          file: MAIN,
          line: 1,
          column: 1,
          callSites: [pos(await ws.within(MAIN, CJK_LINE, "greet"))],
        },
        {
          name: "report",
          kind: "function",
          ...at(await ws.within(REPORT, "def report", "report")),
          callSites: [pos(await ws.within(REPORT, "{greet(", "greet"))],
        },
      ]);
    });

    await t.step("call_hierarchy gives the item, its callers and its callees", async () => {
      const answer = await h.ok({ action: "call_hierarchy", file: REPORT, query: "report" });
      assert.deepEqual(itemOf(answer), {
        name: "report",
        kind: "function",
        ...at(await ws.within(REPORT, "def report", "report")),
      });
      assert.deepEqual(callsOf(answer, "incoming").map((c) => [c.name, c.file]), [
        ["main.py", MAIN],
      ]);
      assert.deepEqual(callsOf(answer, "outgoing").map((c) => c.name), ["chorus", "greet"]);
    });

    await t.step("outgoing_calls lists what a function calls, with call sites", async () => {
      const answer = await h.ok({ action: "outgoing_calls", file: REPORT, query: "report" });
      assert.deepEqual(callsOf(answer, "calls"), [
        {
          name: "chorus",
          kind: "function",
          ...at(await ws.within(REPORT, "def chorus", "chorus")),
          callSites: [pos(await ws.within(REPORT, "{chorus(", "chorus"))],
        },
        {
          name: "greet",
          kind: "function",
          ...at(greetDef),
          callSites: [pos(await ws.within(REPORT, "{greet(", "greet"))],
        },
      ]);
    });

    await t.step("SYMBOL_NOT_FOUND names the nearby line that has the symbol", async () => {
      const rex = await ws.locate(MAIN, "rex = Dog");
      const message = await h.fails(
        { action: "hover", file: MAIN, line: rex.line, symbol: "message" },
        "SYMBOL_NOT_FOUND",
      );
      assert.match(message, new RegExp(`It is on line ${cjk.line}\\b`));
    });

    await t.step("aliases give the canonical answers", async () => {
      const call = await ws.within(MAIN, CJK_LINE, "greet");
      const canonical = await h.ok({
        action: "definition",
        file: MAIN,
        line: call.line,
        column: call.column,
      });
      const alias = await h.ok({
        operation: "goToDefinition",
        filePath: MAIN,
        line: call.line,
        character: call.column,
      });
      assert.deepEqual(alias.details, canonical.details);
      const search = await h.ok({ action: "symbols", file: "*", query: "speak" });
      const workspaceSymbol = await h.ok({
        operation: "workspaceSymbol",
        filePath: MAIN,
        query: "speak",
      });
      assert.deepEqual(workspaceSymbol.details, search.details);
    });

    await t.step("status, servers and capabilities describe the running server", async () => {
      const status = await h.ok({ action: "status" });
      const [server] = status.details.servers as Record<string, unknown>[];
      assert.equal(server.server, "pyright");
      assert.equal(server.state, "ready");
      assert.equal(server.root, ".");
      const servers = await h.ok({ action: "servers" });
      assert.deepEqual(
        (servers.details.servers as { server: string }[]).map((s) => s.server),
        ["pyright"],
      );
      const capabilities = await h.ok({ action: "capabilities", file: MAIN });
      assert.equal(capabilities.details.server, "pyright");
      const actions = capabilities.details.actions as Record<string, boolean>;
      assert.equal(actions.declaration, true);
      assert.equal(actions.call_hierarchy, true);
      assert.equal(actions.implementation, false);
    });
  } finally {
    await h.close();
  }
});

Deno.test("pyright follows files edited on disk between queries", async (t) => {
  const h = await harness("python", { allowMutations: true });
  try {
    const { ws } = h;
    const original = Object.fromEntries(
      await Promise.all(
        [MAIN, GREETING, REPORT, INIT].map(async (f) => [f, await ws.read(f)]),
      ),
    ) as Record<string, string>;

    await t.step(
      "a definition moves with lines inserted above it in a file not open yet",
      async () => {
        const call = await ws.within(MAIN, CJK_LINE, "greet");
        const query = { action: "definition", file: MAIN, line: call.line, column: call.column };
        const before = await ws.within(GREETING, "def greet(", "greet");
        assert.deepEqual(locationsOf(await h.ok(query)), [before]);
        try {
          await ws.write(GREETING, insertBefore(original[GREETING], "def greet(", "# a\n# b\n"));
          const moved = await ws.within(GREETING, "def greet(", "greet");
          assert.equal(moved.line, before.line + 2);
          assert.deepEqual(locationsOf(await h.ok(query)), [moved]);
        } finally {
          await ws.write(GREETING, original[GREETING]);
        }
      },
    );

    await t.step(
      "a changed signature in an imported file shows in the importer's diagnostics",
      async () => {
        assert.equal((await h.ok({ action: "diagnostics", file: MAIN })).details.total, 0);
        try {
          await ws.write(
            GREETING,
            original[GREETING].replace("greet(name: str)", "greet(name: int)"),
          );
          const answer = await h.ok({ action: "diagnostics", file: MAIN });
          const [file] = answer.details.files as { diagnostics: Record<string, unknown>[] }[];
          const argument = await ws.within(MAIN, "greet(名前)", "名前");
          assert.deepEqual(
            file.diagnostics.map((d) => pick(d, ["line", "column", "severity"])),
            [{ ...pos(argument), severity: "error" }],
          );
        } finally {
          await ws.write(GREETING, original[GREETING]);
        }
      },
    );

    await t.step("rename with apply writes the new name everywhere expected", async () => {
      const answer = await h.ok({
        action: "rename",
        file: GREETING,
        query: "greet",
        new_name: "welcome",
        apply: true,
      });
      assert.equal(answer.details.applied, true);
      assert.equal(answer.details.edits, 8);
      const renamed = (text: string) => text.replaceAll(/\bgreet\b/g, "welcome");
      for (const file of [MAIN, GREETING, REPORT, INIT]) {
        assert.equal(await ws.read(file), renamed(original[file]), file);
      }
      // Prose stays: "greeting" in docstrings and the module name are not the symbol.
      assert.match(await ws.read(GREETING), /Builds a greeting — /);
      assertAllClean(await h.ok({ action: "diagnostics", file: "**/*.py" }));
    });
  } finally {
    await h.close();
  }
});

for (const server of ["pyright", "basedpyright"]) {
  Deno.test(`${server}: references as the very first request of a cold server name every file`, async () => {
    // pyright lists the workspace's files only after `initialized` (and after running the
    // interpreter for its search paths): a references request sent before that searched the
    // open files alone. lspgate waits for the listing before a workspace query.
    const h = await harness("python", {
      servers: server === "basedpyright" ? { basedpyright: { preferred: true } } : {},
    });
    try {
      const answer = await h.ok({ action: "references", file: GREETING, query: "greet" });
      assert.equal(answer.details.partial, false);
      const ws = h.ws;
      assert.deepEqual(
        sorted(locationsOf(answer)),
        sorted([
          await ws.within(GREETING, "def greet(", "greet"),
          await ws.within(GREETING, "[greet(", "greet"),
          await ws.within(MAIN, "import greet", "greet"),
          await ws.within(MAIN, CJK_LINE, "greet"),
          await ws.within(INIT, "import greet", "greet"),
          await ws.within(INIT, '"greet"', "greet"),
          await ws.within(REPORT, "import greet", "greet"),
          await ws.within(REPORT, "{greet(", "greet"),
        ]),
      );
      const status = await h.ok({ action: "status" });
      assert.match(textOf(status), new RegExp(server));
    } finally {
      await h.close();
    }
  });
}
