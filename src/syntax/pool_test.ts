import assert from "node:assert/strict";
import { LspGateError } from "../errors.ts";
import { SyntaxPool } from "./pool.ts";

const DEEP = "class A " + "{".repeat(60_000);
const deep = { kind: "analyze" as const, language: "java" as const, text: DEEP };
const small = { kind: "analyze" as const, language: "java" as const, text: "class B {}" };

/** The LspGateError `work` fails with. */
async function failure(work: Promise<unknown>): Promise<LspGateError> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof LspGateError, String(error));
    return error;
  }
  assert.fail("expected a failure");
}

Deno.test("SyntaxPool: a job past its deadline is TIMEOUT saying how far it got; the next job answers", async () => {
  const pool = new SyntaxPool();
  try {
    // Warm, so the deadline falls in the outline, not in the grammar's load.
    await pool.run(small, { timeoutMs: 30_000 });
    const started = performance.now();
    const error = await failure(pool.run(deep, { timeoutMs: 1000, file: "deep.java" }));
    assert.ok(performance.now() - started < 2000, `${performance.now() - started} ms`);
    assert.equal(error.code, "TIMEOUT");
    assert.match(error.message, /^deep\.java's Java syntax was not ready within 1000 ms: /);
    assert.equal(error.data?.stage, "outline", error.message);
    const answer = await pool.run(small, { timeoutMs: 30_000 });
    assert.deepEqual((answer as { symbols: { name: string }[] }).symbols.map((s) => s.name), ["B"]);
  } finally {
    pool.close();
  }
});

Deno.test("SyntaxPool: a cancel answers CANCELLED at once and ends the busy Worker", async () => {
  const pool = new SyntaxPool();
  try {
    await pool.run(small, { timeoutMs: 30_000 });
    const controller = new AbortController();
    const running = pool.run(deep, { timeoutMs: 30_000, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = performance.now();
    controller.abort();
    assert.equal((await failure(running)).code, "CANCELLED");
    assert.ok(performance.now() - started < 100);
    assert.equal(pool.workers, 0);
  } finally {
    pool.close();
  }
});

Deno.test("SyntaxPool: a quick job does not wait behind a slow one (a second Worker)", async () => {
  const pool = new SyntaxPool();
  try {
    await pool.run(small, { timeoutMs: 30_000 });
    const slow = pool.run(deep, { timeoutMs: 3000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    await pool.run(small, { timeoutMs: 30_000 });
    // A fresh Worker loads the runtime and the grammar: well under the slow job's 3 s.
    assert.ok(performance.now() - started < 2000, `${performance.now() - started} ms`);
    assert.equal(pool.workers, 2);
    assert.equal((await failure(slow)).code, "TIMEOUT");
  } finally {
    pool.close();
  }
});

Deno.test("SyntaxPool: once its caller's input ends, a parse has 1 s more, and a job after it still answers", async () => {
  const pool = new SyntaxPool();
  try {
    await pool.run(small, { timeoutMs: 30_000 });
    const ending = new AbortController();
    const running = pool.run(deep, { timeoutMs: 30_000, ending: ending.signal });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    ending.abort();
    // A request piped in just before EOF: a small file parses well within the second it has.
    const after = pool.run(small, { timeoutMs: 30_000, ending: ending.signal });
    const error = await failure(running);
    const ms = performance.now() - started;
    assert.ok(ms >= 900 && ms < 1500, `${ms} ms after the end of input`);
    assert.equal(error.code, "TIMEOUT");
    assert.match(error.message, /within 1000 ms of the end of input/);
    assert.equal(error.data?.endOfInput, true);
    const answer = await after;
    assert.deepEqual((answer as { symbols: { name: string }[] }).symbols.map((s) => s.name), ["B"]);
  } finally {
    pool.close();
  }
});

Deno.test("SyntaxPool: crafted files queued when the input ends all answer soon after it, not a second each once they start", async () => {
  const pool = new SyntaxPool();
  try {
    await pool.run(small, { timeoutMs: 30_000 });
    const ending = new AbortController();
    // Ten deep parses on two Workers: eight wait behind the two running. A second each once they
    // start (the defect) is 5 s; all within the end's bound, well under that even when loaded.
    const jobs = Array.from(
      { length: 10 },
      () => failure(pool.run(deep, { timeoutMs: 30_000, ending: ending.signal })),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    ending.abort();
    const errors = await Promise.all(jobs);
    const ms = performance.now() - started;
    assert.ok(ms < 4000, `${ms} ms after the end of input`);
    for (const error of errors) {
      assert.equal(error.code, "TIMEOUT");
      assert.equal(error.data?.endOfInput, true);
    }
  } finally {
    pool.close();
  }
});
