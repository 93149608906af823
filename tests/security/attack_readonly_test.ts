// Configured read-only roots (a toolchain's library): read for context, never written — not by a
// hostile server's edit, not by an agent's apply, not as a move's source or destination.
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertOk,
  assertRefused,
  type AttackFixture,
  contextUnder,
  snapshotTree,
  withFixture,
} from "./fixture.ts";

const AT_ALPHA = { file: "src/a.ts", line: 1, column: 14 };

/** A main session with mutations whose hostile server points into the read-only library. */
function openLibrary(fx: AttackFixture) {
  return fx.open({
    role: "main",
    allowMutations: true,
    readOnlyRoots: [fx.library],
    hostileOutside: fx.library,
  });
}

Deno.test("read-only root: a location inside it is shown with context (reads are allowed)", () =>
  withFixture(async (fx) => {
    const session = await openLibrary(fx);
    const request = { action: "definition", ...AT_ALPHA };
    const response = assertOk(await fx.ask(session, request), request);
    const context = contextUnder(response.content[0].text, `${fx.library}/secret.ts:2:3`);
    assert.ok(context.some((line) => line.includes(fx.libraryToken)), context.join("\n"));
  }));

for (const newName of ["mixed", "onlyOutside", "deleteOut", "renameIn", "createOut", "renameOut"]) {
  Deno.test(`read-only root: a hostile rename (${newName}) into it is OUTSIDE_WORKSPACE`, () =>
    withFixture(async (fx) => {
      const before = await snapshotTree(fx.root);
      const session = await openLibrary(fx);
      const request = { action: "rename", ...AT_ALPHA, new_name: newName, apply: true };
      assertRefused(await fx.ask(session, request), "OUTSIDE_WORKSPACE", request);
      assert.deepEqual(await snapshotTree(fx.root), before, "the workspace changed");
    }));
}

Deno.test("read-only root: agent edits of its files are OUTSIDE_WORKSPACE, reads are served", () =>
  withFixture(async (fx) => {
    const before = await snapshotTree(fx.root);
    const session = await openLibrary(fx);
    const file = join(fx.library, "secret.ts");
    assertOk(await fx.ask(session, { action: "hover", file, line: 1, column: 1 }), file);
    for (
      const request of [
        { action: "format", file, apply: true },
        { action: "rename", file, line: 1, column: 1, new_name: "insideOnly", apply: true },
        { action: "code_actions", file, line: 1, column: 1, query: "Fix inside", apply: true },
        { action: "rename_file", file, new_name: "src/stolen.ts", apply: true },
        { action: "rename_file", file: "src/b.ts", new_name: `${fx.library}/b.ts`, apply: true },
        { action: "code_actions", ...AT_ALPHA, query: "Fix outside", apply: true },
      ]
    ) {
      assertRefused(await fx.ask(session, request), "OUTSIDE_WORKSPACE", request, ["read-only"]);
    }
    assert.deepEqual(await snapshotTree(fx.root), before, "the workspace changed");
  }));
