import assert from "node:assert/strict";
import { BudgetPool, decideBudget } from "./budget.ts";

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

Deno.test("BudgetPool tells each member of an overrun only of its own servers, never another's name or size", async () => {
  const member = (...servers: ReturnType<typeof server>[]) => ({
    servers: () => servers,
    stop: () => Promise.resolve(),
  });
  const overOf = async (pool: BudgetPool, of: ReturnType<typeof member>) => {
    const deadline = Date.now() + 10_000;
    while (pool.overFor(of) === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return pool.overFor(of);
  };
  // One server alone over the budget: named to its own root only.
  const alone = new BudgetPool(100);
  const a = member(server("pyright@/a", 30, 1));
  const b = member(server("typescript@/b", 500, 2));
  const leave = [alone.join(a), alone.join(b)];
  alone.check(true);
  assert.match(String(await overOf(alone, b)), /^typescript@\/b alone uses 500 MiB/);
  assert.equal(
    await overOf(alone, a),
    "a server of another workspace this lspgate serves alone uses more than the memory budget " +
      "of 100 MiB; it is kept",
  );
  // Busy servers of two roots together over it: neither hears the other's size.
  const kept = new BudgetPool(100);
  const c = member(server("pyright@/c", 80, 1, true));
  const d = member(server("gopls@/d", 80, 2, true));
  leave.push(kept.join(c), kept.join(d));
  kept.check(true);
  for (const  of of[c, d]) {
    assert.equal(
      await overOf(kept, of),
      "the servers kept (busy or used last), some of other workspaces this lspgate serves, hold " +
        "more than the memory budget of 100 MiB",
    );
  }
  await Promise.all(leave.map((go) => go()));
});

Deno.test("BudgetPool checks a server's start after its request, not at once, and status waits for that check", async () => {
  let stops = 0;
  const measured: string[] = [];
  const member = {
    servers: () => {
      measured.push("measured");
      return [server("old", 300, 1), server("new", 300, 2)];
    },
    stop: () => {
      stops++;
      return Promise.resolve();
    },
  };
  let budgetAsked = 0;
  const pool = new BudgetPool(() => {
    budgetAsked++;
    return 400;
  });
  const leave = pool.join(member);
  pool.started();
  // Nothing read while the starting server's first question is still being asked.
  assert.deepEqual([budgetAsked, measured.length], [0, 0]);
  // Its request ended: checked on a later turn even within the throttle, the budget read then.
  pool.checkSoon();
  assert.deepEqual([budgetAsked, measured.length], [0, 0]);
  await new Promise((resolve) => setTimeout(resolve, 0));
  await pool.settled();
  assert.deepEqual([budgetAsked, measured.length, stops], [1, 1, 1]);
  // A second start with no request after it: status runs the check it made due, and waits.
  pool.started();
  await pool.settled();
  assert.deepEqual([measured.length, stops], [2, 2]);
  // Nothing due: status waits for nothing and checks nothing.
  await pool.settled();
  assert.equal(measured.length, 2);
  await leave();
});
