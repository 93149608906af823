// Quick fixes are there when the diagnostics are (issue 17): typescript-language-server answers
// code actions from its own diagnostics, not the request's, while its check of an edit is pending
// (300–800 ms after a change), and those are of the text before the edit: code_actions right after
// an edit listed only refactors, and an apply by title failed. Against the real server: after
// each on-disk edit (and after a check: true preview), code_actions at once lists the quick fix,
// and an apply by its title writes it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { expectOk, openSession, textOf } from "../helpers/session.ts";

const TSCONFIG = JSON.stringify({
  compilerOptions: { strict: true, target: "ES2022", module: "ESNext", noEmit: true },
  include: ["src"],
});
const good = (n: number) =>
  `export function greet(name: string): string {\n  return name;\n}\n\nexport const x${n} = greet("a");\n`;
const misspelt = (n: number) => good(n).replace('= greet("a")', '= gret("a")');
const FIX = "Change spelling to 'greet'";

Deno.test("code_actions right after an on-disk edit lists the quick fix and applies it by title", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-quickfix-" }));
  await Deno.mkdir(join(root, "src"));
  await Deno.writeTextFile(join(root, "tsconfig.json"), TSCONFIG);
  const file = join(root, "src/a.ts");
  await Deno.writeTextFile(file, good(0));
  const session = await openSession(root, { role: "main", allowMutations: true });
  let id = 1;
  const ask = (request: Record<string, unknown>) => session.handle({ id: id++, ...request });
  try {
    // Open and clean first, so each round's edit is a change to a file the server has open.
    const clean = expectOk(await ask({ action: "diagnostics", file: "src/a.ts" }));
    assert.equal(clean.details.total, 0, textOf(clean));
    for (let round = 1; round <= 4; round++) {
      await Deno.writeTextFile(file, misspelt(round));
      const where = { file: "src/a.ts", line: 5, symbol: "gret" };
      if (round === 4) {
        // A check: true preview puts the edited text in the server's view and back: again a change.
        const checked = expectOk(
          await ask({ action: "code_actions", ...where, query: FIX, check: true }),
        );
        assert.match(textOf(checked), /Check: the edit adds no diagnostics/);
      }
      const listed = expectOk(await ask({ action: "code_actions", ...where }));
      const titles = (listed.details.actions as { title: string; kind?: string }[])
        .map((a) => `${a.title} [${a.kind}]`);
      assert.ok(titles.includes(`${FIX} [quickfix]`), `round ${round}: ${titles.join("; ")}`);
      await Deno.writeTextFile(file, misspelt(round + 10));
      const applied = expectOk(
        await ask({ action: "code_actions", ...where, query: FIX, apply: true }),
      );
      assert.equal(applied.details.applied, true, textOf(applied));
      assert.equal(await Deno.readTextFile(file), good(round + 10), textOf(applied));
    }
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});
