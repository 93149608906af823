import assert from "node:assert/strict";
import { Deadlines } from "./deadlines.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("deadlines fire in order of their time, not of their setting", async () => {
  const deadlines = new Deadlines();
  const fired: string[] = [];
  deadlines.add(60, () => fired.push("late"));
  deadlines.add(10, () => fired.push("early"));
  deadlines.add(30, () => fired.push("middle"));
  await sleep(150);
  assert.deepEqual(fired, ["early", "middle", "late"]);
  assert.deepEqual(deadlines.size, 0);
});

Deno.test("a cleared deadline never fires, and the others still do", async () => {
  const deadlines = new Deadlines();
  const fired: string[] = [];
  const clearFirst = deadlines.add(10, () => fired.push("cleared"));
  deadlines.add(40, () => fired.push("kept"));
  clearFirst();
  assert.deepEqual(deadlines.size, 1);
  await sleep(25);
  assert.deepEqual(fired, []);
  await sleep(60);
  assert.deepEqual(fired, ["kept"]);
});

Deno.test("a deadline set from one that fires is kept", async () => {
  const deadlines = new Deadlines();
  const fired: string[] = [];
  deadlines.add(5, () => {
    fired.push("first");
    deadlines.add(5, () => fired.push("second"));
  });
  await sleep(80);
  assert.deepEqual(fired, ["first", "second"]);
});

/** Runs `code` after importing deadlines in a process of its own; its stdout. */
async function runAlone(code: string): Promise<string> {
  const child = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { deadlines } from ${JSON.stringify(new URL("./deadlines.ts", import.meta.url).href)};
       ${code}`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(child.code, 0);
  return new TextDecoder().decode(child.stdout);
}

Deno.test("a deadline set holds the process open until it fires", async () => {
  assert.equal(
    await runAlone(`deadlines.add(50, () => console.log("fired")); console.log("set");`),
    "set\nfired\n",
  );
});

Deno.test("deadlines all cleared hold no process open", async () => {
  const started = performance.now();
  const out = await runAlone(`
    const clearLate = deadlines.add(30_000, () => console.log("late fired"));
    const clearLater = deadlines.add(60_000, () => console.log("later fired"));
    clearLate();
    clearLater();
    console.log("cleared");`);
  assert.equal(out, "cleared\n");
  // It ended without waiting 30 s for the timer left set.
  assert.ok(performance.now() - started < 20_000);
});
