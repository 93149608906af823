import assert from "node:assert/strict";
import { ACTION_NAMES, loadAction } from "./lazy_table.ts";
import { ACTIONS } from "./table.ts";

Deno.test("the session's lazy action table names every action of table.ts, in its order, and loads each as table.ts has it", async () => {
  assert.deepEqual(ACTION_NAMES, [...ACTIONS.keys()]);
  for (const [name, eager] of ACTIONS) {
    const lazy = await loadAction(name);
    assert.ok(lazy, name);
    assert.equal(lazy.name, name);
    assert.equal(lazy.summary, eager.summary, name);
    assert.equal(lazy.schema, eager.schema, `${name}: the same schema object`);
    assert.equal(String(lazy.access), String(eager.access), name);
    assert.equal(lazy, await loadAction(name), `${name}: loaded once`);
  }
  assert.equal(await loadAction("constructor"), undefined);
  assert.equal(await loadAction("nope"), undefined);
});
