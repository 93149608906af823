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

Deno.test("parseStats() reads /proc's stat lines, command names of any bytes included", async () => {
  const { parseStats } = await import("./memory.ts");
  // pid (comm) state ppid, then 19 fields to rss (field 24, in 4 KiB pages), then more.
  const stat = (pid: number, comm: string, ppid: number, rssPages: number) =>
    `${pid} (${comm}) S ${ppid} ${"7 ".repeat(18)}0 ${rssPages} 18446744073709551615 1 1 0\n`;
  const text = stat(1, "init", 0, 250) + stat(20, "a) R 9 (b", 1, 75) +
    stat(21, "two\nlines) S 5", 20, 10) + stat(22, "tsserver", 20, 5);
  const table = parseStats(text)!;
  assert.deepEqual([...table], [
    [1, { ppid: 0, rssKiB: 1000 }],
    [20, { ppid: 1, rssKiB: 300 }],
    [21, { ppid: 20, rssKiB: 40 }],
    [22, { ppid: 20, rssKiB: 20 }],
  ]);
  assert.equal(treeRssKiB(20, table), 360);
  assert.equal(parseStats(""), undefined, "nothing read is unknown, not an empty machine");
});

Deno.test("parseStats() reads this machine's /proc as cat prints it", async () => {
  const { parseStats } = await import("./memory.ts");
  const out = await new Deno.Command("sh", { args: ["-c", "cat /proc/[0-9]*/stat"] }).output();
  const table = parseStats(new TextDecoder().decode(out.stdout))!;
  const self = Deno.readTextFileSync(`/proc/${Deno.pid}/stat`);
  const fields = self.slice(self.lastIndexOf(")") + 2).split(" ");
  assert.equal(table.get(Deno.pid)?.ppid, Number(fields[1]));
  assert.ok((table.get(Deno.pid)?.rssKiB ?? 0) > 10_000, "this Deno holds more than 10 MiB");
  assert.ok(table.size > 3, `${table.size} processes`);
});
