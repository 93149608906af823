// Time-of-check attacks: a file or folder swapped for a symlink out after a first successful query.
// The next query (or apply) must resolve again and refuse. One case uses a real server (`deno lsp`),
// whose own answers then name the swapped file: lspgate must list it without reading it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ADAPTERS } from "../../mod.ts";
import {
  assertOk,
  assertRefused,
  type AttackFixture,
  contextUnder,
  withFixture,
} from "./fixture.ts";

const DENO = ADAPTERS.filter((a) => a.id === "deno");

/** Replaces `rel` (a file or folder in the workspace) with a symlink to `target`. */
async function swapForLink(fx: AttackFixture, rel: string, target: string): Promise<void> {
  const path = join(fx.root, rel);
  await Deno.rename(path, `${path}.orig`);
  await Deno.symlink(target, path);
}

Deno.test("swap (deno lsp): a file swapped for a symlink out after a query is refused next time", {
  ignore: DENO.length === 0,
}, () =>
  withFixture(async (fx) => {
    const session = await fx.open({ role: "subagent", adapters: DENO });
    const hover = { action: "hover", file: "src/a.ts", line: 1, symbol: "alpha" };
    const first = assertOk(await fx.ask(session, hover), hover);
    assert.match(first.content[0].text, /alpha/);
    const definition = { action: "definition", file: "src/b.ts", line: 1, symbol: "alpha" };
    assertOk(await fx.ask(session, definition), definition);

    await swapForLink(fx, "src/a.ts", fx.commentSecret);

    assertRefused(await fx.ask(session, hover), "OUTSIDE_WORKSPACE", hover);
    for (const action of ["format", "symbols", "diagnostics"]) {
      const request = { action, file: "src/a.ts" };
      assertRefused(await fx.ask(session, request), "OUTSIDE_WORKSPACE", request);
    }
    // b.ts still imports ./a.ts: the server may answer with it; lspgate must not read it.
    const again = await fx.ask(session, definition);
    if (again.ok) {
      const locations = again.details.locations as { file: string; line: number; column: number }[];
      for (const l of locations.filter((l) => l.file === "src/a.ts")) {
        assert.deepEqual(
          contextUnder(again.content[0].text, `${l.file}:${l.line}:${l.column}`),
          [],
        );
      }
    }
    for (
      const request of [
        { action: "references", file: "src/b.ts", line: 1, symbol: "alpha" },
        { action: "diagnostics", file: "src/b.ts" },
        { action: "diagnostics", file: "**/*.ts" },
      ]
    ) {
      await fx.ask(session, request); // any answer, as long as the canary is not in it
    }
  }));

Deno.test("swap: a folder swapped for a symlink out after a query is refused next time", () =>
  withFixture(async (fx) => {
    const session = await fx.open({ role: "main", allowMutations: true });
    const hover = { action: "hover", file: "src/a.ts", line: 1, column: 14 };
    assertOk(await fx.ask(session, hover), hover);

    await swapForLink(fx, "src", fx.outside);

    for (
      const request of [
        hover,
        { action: "hover", file: "src/secret.ts", line: 1, column: 1 },
        { action: "format", file: "src/a.ts", apply: true },
        {
          action: "rename",
          file: "src/a.ts",
          line: 1,
          column: 14,
          new_name: "insideOnly",
          apply: true,
        },
        { action: "rename_file", file: "src.orig/b.ts", new_name: "src/b.ts", apply: true },
      ]
    ) {
      assertRefused(await fx.ask(session, request), "OUTSIDE_WORKSPACE", request);
    }
    const glob = { action: "diagnostics", file: "src/**" };
    assert.deepEqual(assertOk(await fx.ask(session, glob), glob).details.files, []);
  }));

Deno.test("swap: a file swapped out between an edit's preview and its apply is not written", () =>
  withFixture(async (fx) => {
    const session = await fx.open({ role: "main", allowMutations: true });
    const rename = {
      action: "rename",
      file: "src/a.ts",
      line: 1,
      column: 14,
      new_name: "insideOnly",
    };
    const preview = assertOk(await fx.ask(session, rename), rename);
    assert.equal(preview.details.applied, false);
    const format = { action: "format", file: "src/a.ts" };
    assertOk(await fx.ask(session, format), format);

    await swapForLink(fx, "src/a.ts", fx.secret);

    for (const request of [{ ...rename, apply: true }, { ...format, apply: true }]) {
      assertRefused(await fx.ask(session, request), "OUTSIDE_WORKSPACE", request);
    }
    // Control: files that stay inside are still written.
    const viaB = {
      action: "code_actions",
      file: "src/b.ts",
      line: 1,
      column: 1,
      query: "Fix inside",
      apply: true,
    };
    assertOk(await fx.ask(session, viaB), viaB);
    assert.match(await Deno.readTextFile(join(fx.root, "src/b.ts")), /^\/\/ fix\n/);
  }));
