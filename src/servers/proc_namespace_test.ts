// Inside sandbox-runtime /proc is an outer PID namespace's: the process table lspgate reads must
// still be keyed by the pids lspgate knows (its own namespace's), hold only its own subtree, and
// carry each process's memory.
import assert from "node:assert/strict";
import { nestedDepth, statusTable } from "./proc_namespace.ts";

/** A /proc/<pid>/status text, as much of it as lspgate reads. */
function status(name: string, pid: number, ppid: number, nspid: number[], rssKiB?: number) {
  return [
    `Name:\t${name}`,
    "State:\tS (sleeping)",
    `Pid:\t${pid}`,
    `PPid:\t${ppid}`,
    `NSpid:\t${nspid.join("\t")}`,
    ...(rssKiB === undefined ? [] : [`VmRSS:\t${rssKiB} kB`]),
    "Threads:\t1",
  ].join("\n") + "\n";
}

Deno.test("statusTable(): /proc of the outer namespace, keyed by lspgate's own pids, its subtree only", () => {
  const text = [
    status("bwrap", 1, 0, [1], 900),
    status("socat", 3, 1, [3], 1000),
    status("apply-seccomp", 6, 1, [6, 1], 500),
    status("deno", 7, 6, [7, 2], 70_000),
    // A server, its helper, and a process of a sibling namespace numbered like the server.
    status("node", 9, 7, [9, 3], 200_000),
    status("tsserver", 11, 9, [11, 4], 300_000),
    status("other", 12, 1, [12, 3], 5),
    status("kthread", 13, 7, [13, 5]),
  ].join("");
  assert.equal(nestedDepth(status("cat", 14, 7, [14, 6])), 1);
  assert.equal(nestedDepth(status("cat", 14, 7, [14])), 0);
  const table = statusTable(text, 1, 7);
  assert.deepEqual([...table].sort(([a], [b]) => a - b), [
    [2, { ppid: 0, rssKiB: 70_000 }],
    [3, { ppid: 2, rssKiB: 200_000 }],
    [4, { ppid: 3, rssKiB: 300_000 }],
    [5, { ppid: 2, rssKiB: 0 }],
  ]);
});
