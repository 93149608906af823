// A project whose TypeScript is 7.x is served by TypeScript 7's own `tsc --lsp --stdio`, not by
// typescript-language-server (which cannot use it).
import assert from "node:assert/strict";
import { join } from "node:path";
import { ensureTypeScript7 } from "../tools.ts";
import { expectOk, locationsOf, openSession } from "../helpers/session.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

Deno.test("a TypeScript 7 project is answered by tsc --lsp: definition, references, diagnostics", async () => {
  const modules = await ensureTypeScript7();
  const ws = await TempWorkspace.copy("typescript");
  await Deno.symlink(modules, join(ws.root, "node_modules"));
  await ws.write("package.json", JSON.stringify({ devDependencies: { typescript: "7.0.2" } }));
  const session = await openSession(ws.root);
  try {
    const call = await ws.locate("src/index.ts", "formatPrice(basket");
    const definition = expectOk(
      await session.handle({ id: 1, action: "definition", file: "src/index.ts", ...call }),
    );
    const declared = await ws.locate("src/format.ts", "formatPrice");
    assert.deepEqual(
      locationsOf(definition).map(({ file, line, column }) => ({ file, line, column })),
      [{ file: "src/format.ts", line: declared.line, column: declared.column }],
    );

    const servers = expectOk(await session.handle({ id: 2, action: "servers" }));
    const [server] = servers.details.servers as { server: string; note?: string }[];
    assert.equal(server.server, "typescript");
    assert.match(server.note ?? "", /TypeScript 7\.0\.2 \(native\)/);

    const references = expectOk(
      await session.handle({
        id: 3,
        action: "references",
        file: "src/format.ts",
        query: "formatPrice",
      }),
    );
    assert.ok(
      locationsOf(references).some((l) => l.file === "src/index.ts" && l.line === call.line),
      JSON.stringify(locationsOf(references)),
    );

    await ws.write(
      "src/index.ts",
      (await ws.read("src/index.ts")) + "const wrong: number = 'x';\n",
    );
    const line = (await ws.read("src/index.ts")).split("\n").length - 1;
    const diagnostics = expectOk(
      await session.handle({
        id: 4,
        action: "diagnostics",
        file: "src/index.ts",
        severity: "error",
      }),
    );
    const [file] = diagnostics.details.files as {
      status: string;
      diagnostics: { line: number; code?: number }[];
    }[];
    assert.equal(file.status, "ok");
    assert.deepEqual(file.diagnostics.map((d) => [d.line, d.code]), [[line, 2322]]);
  } finally {
    await session.close();
    await ws.remove();
  }
});
