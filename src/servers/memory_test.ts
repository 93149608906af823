import assert from "node:assert/strict";
import { readProcesses, treeRssKiB } from "./memory.ts";

/** VmRSS of one process in KiB, read independently of memory.ts. */
function vmRss(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(status.match(/^VmRSS:\s+(\d+) kB/m)![1]);
}

function childrenOf(pid: number): number[] {
  const text = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).trim();
  return text ? text.split(" ").map(Number) : [];
}

Deno.test("treeRssKiB() sums a process and every descendant, as /proc has them", async () => {
  // A shell with two children of its own: the tree is three processes.
  const child = new Deno.Command("sh", {
    args: ["-c", "sleep 30 & sleep 30 & wait"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  let kids: number[] = [];
  try {
    for (let i = 0; i < 100 && kids.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      kids = childrenOf(child.pid);
    }
    assert.equal(kids.length, 2, "the shell's two sleeps");
    const processes = readProcesses()!;
    const measured = treeRssKiB(child.pid, processes)!;
    const expected = vmRss(child.pid) + kids.reduce((sum, pid) => sum + vmRss(pid), 0);
    assert.ok(
      Math.abs(measured - expected) <= expected * 0.1,
      `tree ${measured} KiB, /proc says ${expected} KiB`,
    );
    assert.ok(measured > vmRss(child.pid), "more than the shell alone");
  } finally {
    for (const pid of kids) Deno.kill(pid, "SIGKILL");
    child.kill("SIGKILL");
    await child.status;
  }
});

Deno.test("treeRssKiB() is undefined for a process that is gone", () => {
  const processes = readProcesses()!;
  assert.equal(treeRssKiB(2 ** 22 + 7, processes), undefined);
});

Deno.test("parsePs() reads ps's table, and trees are summed from its resident sizes", async () => {
  const { parsePs } = await import("./memory.ts");
  const table = parsePs("    1     0  1000\n   20     1   300\n   21    20    40\nnot a row\n")!;
  assert.deepEqual([...table], [
    [1, { ppid: 0, rssKiB: 1000 }],
    [20, { ppid: 1, rssKiB: 300 }],
    [21, { ppid: 20, rssKiB: 40 }],
  ]);
  assert.equal(treeRssKiB(20, table), 340);
  assert.equal(parsePs(""), undefined, "nothing read is unknown, not an empty machine");
});
