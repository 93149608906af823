// Workspace symbol search (`file: "*"` + `query`) against the real typescript-language-server on
// tests/fixtures/typescript, changed the ways the benchmark's rxjs workspace showed to matter.
import assert from "node:assert/strict";
import { expectOk, openSession, textOf } from "../helpers/session.ts";
import type { SymbolView } from "../helpers/expect.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const FORMAT = "src/format.ts";

async function search(
  session: Awaited<ReturnType<typeof openSession>>,
  query: string,
): Promise<{ text: string; symbols: SymbolView[]; partial: unknown }> {
  const answer = expectOk(await session.handle({ id: 1, action: "symbols", file: "*", query }));
  const symbols = answer.details.symbols as SymbolView[];
  return { text: textOf(answer), symbols, partial: answer.details.partial };
}

Deno.test("the first workspace symbol search finds a symbol though a .js outside the tsconfig sorts first", async () => {
  // As rxjs's src/Rx.global.js: a plain script the tsconfig does not take in (no allowJs), first
  // in its folder. Opened to start the server, it left tsserver with a one-file project to search.
  await using ws = await TempWorkspace.copy("typescript");
  await ws.write("src/Aardvark.global.js", "var Aardvark = { version: '1.0' };\n");
  const session = await openSession(ws.root, { role: "subagent" });
  try {
    const want = await ws.within(FORMAT, "function formatPrice(", "formatPrice");
    const found = await search(session, "formatPrice");
    const hits = found.symbols.filter((s) => s.name === "formatPrice")
      .map((s) => ({ file: s.file, line: s.line, column: s.column }));
    assert.deepEqual(hits, [{ file: want.file, line: want.line, column: want.column }], found.text);
    assert.equal(found.partial, false, found.text);
  } finally {
    await session.close();
  }
});

Deno.test("a project created after a workspace symbol search is searched by the next one", async () => {
  await using ws = await TempWorkspace.copy("typescript");
  const session = await openSession(ws.root, { role: "subagent" });
  try {
    assert.equal(session.facts.changeTracking?.(), "exact");
    const before = await search(session, "makeWombat");
    assert.deepEqual(before.symbols, [], before.text);
    // A package of its own (its tsconfig.json), outside the first project's `include`.
    await Deno.mkdir(ws.path("tools"));
    await ws.write("tools/tsconfig.json", '{ "include": ["."] }\n');
    await ws.write("tools/wombat.ts", "export function makeWombat(): string {\n  return 'w';\n}\n");
    const want = await ws.within("tools/wombat.ts", "function makeWombat(", "makeWombat");
    const after = await search(session, "makeWombat");
    const hits = after.symbols.filter((s) => s.name === "makeWombat")
      .map((s) => ({ file: s.file, line: s.line, column: s.column }));
    assert.deepEqual(hits, [{ file: want.file, line: want.line, column: want.column }], after.text);
  } finally {
    await session.close();
  }
});
