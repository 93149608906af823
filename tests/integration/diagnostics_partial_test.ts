// A diagnostics sweep that stops at its bound says it is partial, as every workspace-wide answer
// does (issue 17): details.partial and partialReason besides truncated, against real pyright.
import assert from "node:assert/strict";
import { join } from "node:path";
import { expectOk, openSession, textOf } from "../helpers/session.ts";

Deno.test("diagnostics over a glob matching more files than it checks: partial with the reason", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-sweep-" }));
  await Deno.writeTextFile(join(root, "pyproject.toml"), '[project]\nname = "s"\nversion = "0"\n');
  await Deno.mkdir(join(root, "pkg"));
  for (let i = 0; i < 66; i++) {
    await Deno.writeTextFile(join(root, `pkg/m${String(i).padStart(2, "0")}.py`), "v: int = 1\n");
  }
  const session = await openSession(root, { role: "subagent" });
  try {
    const all = expectOk(await session.handle({ id: 1, action: "diagnostics", file: "pkg/*.py" }));
    assert.equal((all.details.files as unknown[]).length, 64, textOf(all));
    assert.equal(all.details.truncated, true);
    assert.equal(all.details.partial, true);
    assert.equal(all.details.partialReason, "more files matched than were checked");
    const some = expectOk(
      await session.handle({ id: 2, action: "diagnostics", file: "pkg/m0*.py" }),
    );
    assert.equal(some.details.truncated, false);
    assert.equal(some.details.partial, undefined);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});
