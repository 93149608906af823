import assert from "node:assert/strict";
import { ACTION_NAMES, loadAction } from "./lazy_table.ts";
import { ACTIONS } from "./table.ts";
import { ASKED_WHILE_FLUSHING } from "../flushed_run.ts";

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

Deno.test("every query asked while the watcher flushes, or whose server starts before its input is checked, is read-only for every input", async () => {
  for (const name of ASKED_WHILE_FLUSHING) {
    const action = await loadAction(name);
    assert.ok(action, name);
    // A fixed "read", not a function of the input: no role is refused it (policy.ts).
    assert.equal(action.access, "read", name);
  }
});
