import assert from "node:assert/strict";
import { decideBudget } from "./budget.ts";

const server = (key: string, rssMiB: number, lastUsed: number, busy = false) => ({
  key,
  rssMiB,
  lastUsed,
  busy,
});

Deno.test("decideBudget() stops nothing while the servers fit", () => {
  const decision = decideBudget([server("a", 100, 1), server("b", 200, 2)], 300);
  assert.deepEqual(decision, { stop: [], totalMiB: 300 });
});

Deno.test("decideBudget() stops idle servers least recently used first, only as many as needed", () => {
  const decision = decideBudget(
    [server("new", 100, 40), server("old", 100, 10), server("mid", 100, 20), server("x", 100, 30)],
    250,
  );
  assert.deepEqual(decision.stop, ["old", "mid"]);
  assert.equal(decision.totalMiB, 400);
  assert.equal(decision.over, undefined);
});

Deno.test("decideBudget() never stops a busy server nor the one used last", () => {
  const decision = decideBudget(
    [server("busy", 40, 1, true), server("idle", 100, 2), server("last", 40, 3)],
    50,
  );
  assert.deepEqual(decision.stop, ["idle"]);
  assert.equal(
    decision.over,
    "the servers kept (busy or used last) hold 80 MiB, more than the memory budget of 50 MiB",
  );
});

Deno.test("decideBudget() says when the server used last alone is over, instead of thrashing", () => {
  const decision = decideBudget([server("big", 900, 5)], 500);
  assert.deepEqual(decision.stop, []);
  assert.equal(
    decision.over,
    "big alone uses 900 MiB, more than the memory budget of 500 MiB; it is kept (used last) " +
      "rather than stopped and started again on every question",
  );
});
