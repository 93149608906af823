// Integration tests against the real typescript-language-server on tests/fixtures/typescript (a
// tsconfig.json project, no deno.json up the tree). Expected positions come from text matches.
import assert from "node:assert/strict";
import {
  expectOk,
  harness,
  type Location,
  locationsOf,
  openSession,
  sorted,
  textOf,
} from "../helpers/session.ts";
import { readSpyLog, spyCommand } from "../helpers/lsp_spy.ts";
import { TempWorkspace } from "../helpers/workspace.ts";
import { at, callsOf, insertBefore, itemOf, pick, pos } from "../helpers/expect.ts";

const INDEX = "src/index.ts";
const FORMAT = "src/format.ts";
const MODELS = "src/models.ts";
const CART = "src/cart.ts";

/** The line holding CJK and an emoji before the `Product` constructor call. */
const CJK_LINE = 'const 名前 = "🍎 りんご", apple = new Product(名前, 120);';

Deno.test("typescript-language-server answers read-only queries with exact locations", async (t) => {
  const h = await harness("typescript");
  try {
    const { ws } = h;
    const formatDef = await ws.within(FORMAT, "function formatPrice(", "formatPrice");
    const productClass = await ws.within(MODELS, "class Product ", "Product");

    await t.step("the typescript adapter serves a tsconfig.json project", async () => {
      const capabilities = await h.ok({ action: "capabilities", file: INDEX });
      assert.equal(capabilities.details.server, "typescript");
    });

    await t.step("name#2 picks the second occurrence on the line", async () => {
      const line = (await ws.locate(INDEX, CJK_LINE)).line;
      const answer = await h.ok({ action: "signature", file: INDEX, line, symbol: "名前#2" });
      const [signature] = answer.details.signatures as {
        label: string;
        parameters: string[];
        activeParameter: number;
      }[];
      assert.equal(signature.label, "Product(name: string, cents: number): Product");
      assert.deepEqual(signature.parameters, ["name: string", "cents: number"]);
      assert.equal(signature.activeParameter, 0);
    });

    await t.step("signature names the active parameter after a comma", async () => {
      const second = await ws.within(INDEX, CJK_LINE, "120");
      const answer = await h.ok({
        action: "signature",
        file: INDEX,
        line: second.line,
        column: second.column,
      });
      const [signature] = answer.details.signatures as { activeParameter: number }[];
      assert.equal(signature.activeParameter, 1);
      assert.match(textOf(answer), /current parameter: cents: number/);
    });

    await t.step("declaration is a plain 'not supported by typescript' answer", async () => {
      const answer = await h.ok({ action: "declaration", file: FORMAT, query: "formatPrice" });
      assert.equal(answer.details.supported, false);
      assert.match(textOf(answer), /not supported by typescript/);
    });

    await t.step("type_definition of a variable is its class", async () => {
      const line = (await ws.locate(INDEX, "const basket")).line;
      const answer = await h.ok({ action: "type_definition", file: INDEX, line, symbol: "basket" });
      assert.deepEqual(locationsOf(answer), [await ws.within(MODELS, "class Bundle ", "Bundle")]);
    });

    await t.step("implementation of an interface lists both classes", async () => {
      const answer = await h.ok({ action: "implementation", file: MODELS, query: "Item" });
      assert.deepEqual(sorted(locationsOf(answer)), [
        productClass,
        await ws.within(MODELS, "class Bundle ", "Bundle"),
      ]);
    });

    await t.step("implementation of Item.price lists both methods", async () => {
      const answer = await h.ok({ action: "implementation", file: MODELS, query: "Item.price" });
      assert.deepEqual(sorted(locationsOf(answer)), [
        await ws.within(MODELS, "  price(): number {", "price"),
        await ws.within(MODELS, "  price(): number {", "price", 2),
      ]);
    });

    const formatRefs: Location[] = sorted([
      formatDef,
      await ws.within(CART, "import { formatPrice }", "formatPrice"),
      await ws.within(CART, "${formatPrice(", "formatPrice"),
      await ws.within(INDEX, "import { formatPrice }", "formatPrice"),
      await ws.within(INDEX, "  formatPrice(basket", "formatPrice"),
      await ws.within(MODELS, "import { formatPrice }", "formatPrice"),
      await ws.within(MODELS, "${formatPrice(", "formatPrice"),
    ]);

    await t.step("references with include_declaration false drop the declaration", async () => {
      const answer = await h.ok({
        action: "references",
        file: FORMAT,
        query: "formatPrice",
        include_declaration: false,
      });
      assert.deepEqual(sorted(locationsOf(answer)), formatRefs.filter((l) => l.file !== FORMAT));
    });

    await t.step("references by query Class.method", async () => {
      const answer = await h.ok({ action: "references", file: MODELS, query: "Product.price" });
      const price = (rel: string, context: string, nth = 1) =>
        ws.within(rel, context, "price", nth);
      // tsserver counts the interface method and the other implementation as the same symbol.
      assert.deepEqual(
        sorted(locationsOf(answer)),
        sorted([
          await price(CART, "item.price()"),
          await price(INDEX, "basket.price()"),
          await price(MODELS, "  price(): number;"),
          await price(MODELS, "  price(): number {"),
          await price(MODELS, "this.price()"),
          await price(MODELS, "  price(): number {", 2),
          await price(MODELS, "item.price()"),
        ]),
      );
    });

    await t.step("hover by query Class.method", async () => {
      const answer = await h.ok({ action: "hover", file: MODELS, query: "Product.label" });
      assert.match(answer.details.text as string, /\(method\) Product\.label\(\): string/);
    });

    await t.step("incoming_calls lists each caller with its call site", async () => {
      const answer = await h.ok({ action: "incoming_calls", file: FORMAT, query: "formatPrice" });
      assert.deepEqual(itemOf(answer), { name: "formatPrice", kind: "function", ...at(formatDef) });
      assert.deepEqual(callsOf(answer, "calls"), [
        // A call at the top level of a module comes from the module itself.
        {
          name: "index.ts",
          kind: "module",
          file: INDEX,
          line: 1,
          column: 1,
          callSites: [pos(await ws.within(INDEX, "  formatPrice(basket", "formatPrice"))],
        },
        {
          name: "label",
          kind: "method",
          ...at(await ws.within(MODELS, "  label(): string", "label")),
          callSites: [pos(await ws.within(MODELS, "${formatPrice(", "formatPrice"))],
        },
        {
          name: "summary",
          kind: "function",
          ...at(await ws.within(CART, "function summary", "summary")),
          callSites: [pos(await ws.within(CART, "${formatPrice(", "formatPrice"))],
        },
      ]);
    });

    await t.step("call_hierarchy gives the item, its callers and its callees", async () => {
      const answer = await h.ok({ action: "call_hierarchy", file: CART, query: "summary" });
      assert.deepEqual(itemOf(answer), {
        name: "summary",
        kind: "function",
        ...at(await ws.within(CART, "function summary", "summary")),
      });
      assert.deepEqual(callsOf(answer, "incoming").map((c) => [c.name, c.file]), [
        ["index.ts", INDEX],
      ]);
      assert.deepEqual(callsOf(answer, "outgoing").map((c) => c.name), ["formatPrice", "total"]);
    });

    await t.step("outgoing_calls lists what a function calls, with call sites", async () => {
      const answer = await h.ok({ action: "outgoing_calls", file: CART, query: "summary" });
      assert.deepEqual(callsOf(answer, "calls"), [
        {
          name: "formatPrice",
          kind: "function",
          ...at(formatDef),
          callSites: [pos(await ws.within(CART, "${formatPrice(", "formatPrice"))],
        },
        {
          name: "total",
          kind: "function",
          ...at(await ws.within(CART, "function total", "total")),
          callSites: [pos(await ws.within(CART, "formatPrice(total(", "total"))],
        },
      ]);
    });

    await t.step("SYMBOL_NOT_FOUND names the nearby line that has the symbol", async () => {
      const pear = await ws.locate(INDEX, "const pear");
      const cjk = await ws.locate(INDEX, CJK_LINE);
      const message = await h.fails(
        { action: "hover", file: INDEX, line: pear.line, symbol: "apple" },
        "SYMBOL_NOT_FOUND",
      );
      assert.match(message, new RegExp(`It is on line ${cjk.line}\\b`));
    });

    await t.step("the goToDefinition alias gives the canonical answer", async () => {
      const call = await ws.within(INDEX, "  formatPrice(basket", "formatPrice");
      const canonical = await h.ok({
        action: "definition",
        file: INDEX,
        line: call.line,
        column: call.column,
      });
      const alias = await h.ok({
        operation: "goToDefinition",
        filePath: INDEX,
        line: call.line,
        character: call.column,
      });
      assert.deepEqual(alias.details, canonical.details);
    });

    await t.step("status, servers and capabilities describe the running server", async () => {
      const status = await h.ok({ action: "status" });
      const [server] = status.details.servers as Record<string, unknown>[];
      assert.equal(server.server, "typescript");
      assert.equal(server.state, "ready");
      assert.match(server.note as string, /typescript-language-server with TypeScript \d/);
      const servers = await h.ok({ action: "servers" });
      assert.deepEqual(
        (servers.details.servers as { server: string }[]).map((s) => s.server),
        ["typescript"],
      );
      const capabilities = await h.ok({ action: "capabilities", file: CART });
      const actions = capabilities.details.actions as Record<string, boolean>;
      assert.equal(actions.definition, true);
      assert.equal(actions.implementation, true);
      assert.equal(actions.call_hierarchy, true);
      assert.equal(actions.declaration, false);
    });
  } finally {
    await h.close();
  }
});

Deno.test("typescript-language-server follows files edited on disk between queries", async (t) => {
  const h = await harness("typescript", { allowMutations: true });
  try {
    const { ws } = h;
    const original = Object.fromEntries(
      await Promise.all([INDEX, FORMAT, MODELS, CART].map(async (f) => [f, await ws.read(f)])),
    ) as Record<string, string>;

    await t.step(
      "a definition moves with lines inserted above it in a file not open yet",
      async () => {
        const call = await ws.within(INDEX, "  formatPrice(basket", "formatPrice");
        const query = { action: "definition", file: INDEX, line: call.line, column: call.column };
        const before = await ws.within(FORMAT, "function formatPrice(", "formatPrice");
        assert.deepEqual(locationsOf(await h.ok(query)), [before]);
        try {
          await ws.write(FORMAT, insertBefore(original[FORMAT], "/** Formats", "// a\n// b\n"));
          const moved = await ws.within(FORMAT, "function formatPrice(", "formatPrice");
          assert.equal(moved.line, before.line + 2);
          assert.deepEqual(locationsOf(await h.ok(query)), [moved]);
        } finally {
          await ws.write(FORMAT, original[FORMAT]);
        }
      },
    );

    await t.step(
      "a clean file edited on disk and still clean has no diagnostics (no timeout)",
      async () => {
        // typescript-language-server publishes nothing when a file's diagnostics stay empty, so
        // there is no push for the new version to wait for.
        assert.equal((await h.ok({ action: "diagnostics", file: CART })).details.total, 0);
        assert.equal((await h.ok({ action: "diagnostics", file: INDEX })).details.total, 0);
        try {
          await ws.write(CART, original[CART] + "// A harmless comment.\n");
          const answer = await h.ok({ action: "diagnostics", file: CART, timeout: 5000 });
          assert.deepEqual(answer.details.files, [{ file: CART, status: "ok", diagnostics: [] }]);
        } finally {
          await ws.write(CART, original[CART]);
        }
      },
    );

    await t.step(
      "a changed signature in an imported file shows in the importer's diagnostics",
      async () => {
        assert.equal((await h.ok({ action: "diagnostics", file: INDEX })).details.total, 0);
        try {
          await ws.write(
            FORMAT,
            original[FORMAT].replace("formatPrice(cents: number)", "formatPrice(cents: string)"),
          );
          const answer = await h.ok({ action: "diagnostics", file: INDEX });
          const [file] = answer.details.files as { diagnostics: Record<string, unknown>[] }[];
          const argument = await ws.within(INDEX, "formatPrice(basket.price())", "basket");
          assert.deepEqual(
            file.diagnostics.map((d) => pick(d, ["line", "column", "severity", "code"])),
            [{ ...pos(argument), severity: "error", code: 2345 }],
          );
        } finally {
          await ws.write(FORMAT, original[FORMAT]);
        }
      },
    );

    await t.step("rename with apply writes the new name everywhere expected", async () => {
      const answer = await h.ok({
        action: "rename",
        file: FORMAT,
        query: "formatPrice",
        new_name: "showPrice",
        apply: true,
      });
      assert.equal(answer.details.applied, true);
      assert.equal(answer.details.edits, 7);
      for (const file of [FORMAT, MODELS, CART, INDEX]) {
        assert.equal(
          await ws.read(file),
          original[file].replaceAll("formatPrice", "showPrice"),
          file,
        );
      }
      // The server sees the renamed files: the new name resolves from a caller.
      const call = await ws.within(INDEX, "  showPrice(basket", "showPrice");
      const definition = await h.ok({
        action: "definition",
        file: INDEX,
        line: call.line,
        column: call.column,
      });
      assert.deepEqual(locationsOf(definition), [
        await ws.within(FORMAT, "function showPrice(", "showPrice"),
      ]);
    });
  } finally {
    await h.close();
  }
});

Deno.test("typescript-language-server: a file edited on disk while not open is opened in the server before the next query (it takes no watched-file events)", async () => {
  const ws = await TempWorkspace.copy("typescript");
  const log = await Deno.makeTempFile({ prefix: "lspgate_spy_", suffix: ".jsonl" });
  const server =
    (await new Deno.Command("which", { args: ["typescript-language-server"], stdout: "piped" })
      .output()).stdout;
  const session = await openSession(ws.root, {
    servers: {
      typescript: {
        command: spyCommand(log, [new TextDecoder().decode(server).trim(), "--stdio"]),
      },
    },
  });
  const opens = async () =>
    (await readSpyLog(log)).filter((m) => m.method === "textDocument/didOpen").length;
  let id = 1;
  try {
    const call = await ws.within("src/index.ts", "  formatPrice(basket", "formatPrice");
    const query = { id: 0, action: "definition", file: "src/index.ts", ...pos(call) };
    expectOk(await session.handle({ ...query, id: id++ }));
    const before = await opens();
    const format = await ws.read("src/format.ts");
    await ws.write("src/format.ts", insertBefore(format, "/** Formats", "// a\n// b\n"));
    const moved = await ws.within("src/format.ts", "function formatPrice(", "formatPrice");
    const answer = expectOk(await session.handle({ ...query, id: id++ }));
    assert.equal(await opens(), before + 1, "format.ts was opened in the server");
    assert.deepEqual(locationsOf(answer), [moved]);
  } finally {
    await session.close();
    await ws.remove();
    await Deno.remove(log);
  }
});
