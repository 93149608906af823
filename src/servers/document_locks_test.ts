import assert from "node:assert/strict";
import { LspGateError } from "../errors.ts";
import { DocumentLocks } from "./document_locks.ts";

/** Whether `promise` has settled after the pending microtasks and one timer turn. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true, () => done = true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

Deno.test("DocumentLocks: shared holds of one file do not wait for each other", async () => {
  const locks = new DocumentLocks();
  const a = await locks.shared("/ws/a.ts");
  const b = await locks.shared("/ws/a.ts");
  a();
  b();
});

Deno.test("DocumentLocks: an exclusive hold waits for the shared ones, then holds them off", async () => {
  const locks = new DocumentLocks();
  const query = await locks.shared("/ws/a.ts");
  const overlay = locks.exclusive(["/ws/a.ts", "/ws/b.ts"]);
  assert.equal(await settled(overlay), false);
  // A query of a file the overlay waits for is not held back by the waiting (its own request
  // may hold the file already): only a hold stops it.
  const second = await locks.shared("/ws/b.ts");
  second();
  query();
  const release = await overlay;
  assert.equal(locks.isExclusive("/ws/a.ts"), true);
  const waiting = locks.shared("/ws/b.ts");
  assert.equal(await settled(waiting), false);
  // Another file is free.
  (await locks.shared("/ws/c.ts"))();
  release();
  assert.equal(locks.isExclusive("/ws/a.ts"), false);
  (await waiting)();
});

Deno.test("DocumentLocks: two overlays of overlapping files take turns", async () => {
  const locks = new DocumentLocks();
  const first = await locks.exclusive(["/ws/a.ts", "/ws/b.ts"]);
  const second = locks.exclusive(["/ws/b.ts", "/ws/c.ts"]);
  assert.equal(await settled(second), false);
  // c is not held while the second overlay waits: all or nothing.
  (await locks.shared("/ws/c.ts"))();
  first();
  (await second)();
});

Deno.test("DocumentLocks: waits end with CANCELLED on abort and TIMEOUT after the limit", async () => {
  const locks = new DocumentLocks();
  const release = await locks.exclusive(["/ws/a.ts"]);
  const controller = new AbortController();
  const cancelled = locks.shared("/ws/a.ts", controller.signal);
  controller.abort();
  await assert.rejects(cancelled, (e) => e instanceof LspGateError && e.code === "CANCELLED");
  await assert.rejects(
    locks.exclusive(["/ws/a.ts"], { timeoutMs: 10 }),
    (e) => e instanceof LspGateError && e.code === "TIMEOUT" && /in use/.test(e.message),
  );
  release();
  // Nothing was left held by the waits that gave up.
  (await locks.exclusive(["/ws/a.ts"], { timeoutMs: 10 }))();
});

Deno.test("DocumentLocks: a release called twice releases once", async () => {
  const locks = new DocumentLocks();
  const a = await locks.shared("/ws/a.ts");
  const b = await locks.shared("/ws/a.ts");
  a();
  a();
  const overlay = locks.exclusive(["/ws/a.ts"]);
  assert.equal(await settled(overlay), false);
  b();
  (await overlay)();
});
