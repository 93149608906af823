/**
 * What language servers cost in memory: each server's whole process tree (a sandbox's own
 * processes, the server, the programs it spawned), read from `/proc`.
 *
 * Rationale: a server's pid is often not the process that holds its memory: under bubblewrap it
 * is bwrap's, tsserver and gopls spawn helpers, so only the tree's sum says what stopping the
 * server would give back.
 *
 * @module
 */

import type { BudgetServer } from "./budget.ts";
import type { ServerEntry } from "./manager_types.ts";

/** Each running server's process tree, measured from `processes`, as the memory budget sees it. */
export function budgetServers(
  entries: readonly ServerEntry[],
  processes: ProcessTable | undefined,
): BudgetServer[] {
  return entries.flatMap((entry) => {
    if (entry.state.kind !== "running") return [];
    const kib = processes && treeRssKiB(entry.state.client.pid, processes);
    return [{
      key: entry.key,
      rssMiB: kib === undefined ? undefined : kib / 1024,
      busy: entry.inFlight > 0 || entry.starting !== undefined,
      lastUsed: entry.lastUsed,
    }];
  });
}

/** Every process's parent, by pid: one read of `/proc` (memory is read per tree asked about). */
export type ProcessTable = Map<number, ProcessFacts>;

/** One process as `/proc/<pid>/stat` describes it: its parent. */
export interface ProcessFacts {
  ppid: number;
}

const PAGE_KIB = 4;

/**
 * A snapshot of every process's parent, to find several trees from one read of `/proc`;
 * undefined where `/proc` cannot be read (not Linux, or not granted).
 */
export function readProcesses(): ProcessTable | undefined {
  const processes = new Map<number, ProcessFacts>();
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name)) continue;
    const pid = Number(entry.name);
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      // The command name may hold spaces and parentheses: the fields follow its last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(fields[1]);
      processes.set(pid, { ppid });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return processes;
}

/** The resident memory of `pid` and all its descendants, in KiB; undefined when `pid` is gone. */
export function treeRssKiB(pid: number, processes: ProcessTable): number | undefined {
  if (!processes.has(pid)) return undefined;
  return forestRssKiB([pid], processes);
}

/**
 * The resident memory of several processes and all their descendants, each counted once (a
 * process may descend from two of them: a daemon started by a client is that client's child).
 */
export function forestRssKiB(pids: readonly number[], processes: ProcessTable): number {
  const children = new Map<number, number[]>();
  for (const [child, { ppid }] of processes) {
    const list = children.get(ppid);
    if (list) list.push(child);
    else children.set(ppid, [child]);
  }
  let total = 0;
  const stack = [...pids];
  const seen = new Set<number>();
  while (stack.length) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    total += residentKiB(next);
    stack.push(...children.get(next) ?? []);
  }
  return total;
}

/** One process's resident memory (`statm`), read only for the trees asked about; 0 once gone. */
function residentKiB(pid: number): number {
  try {
    return Number(Deno.readTextFileSync(`/proc/${pid}/statm`).split(" ")[1]) * PAGE_KIB || 0;
  } catch {
    return 0;
  }
}

/** The resident memory of one process tree in MiB (rounded), or undefined where unknown. */
export function treeRssMiB(pid: number): number | undefined {
  const processes = readProcesses();
  const kib = processes && treeRssKiB(pid, processes);
  return kib === undefined ? undefined : Math.round(kib / 1024);
}

/**
 * The default memory budget for language servers: half the machine's memory (`MemTotal` of
 * `/proc/meminfo`), or undefined (no budget) where it cannot be read.
 */
export function defaultBudgetMiB(): number | undefined {
  try {
    const meminfo = Deno.readTextFileSync("/proc/meminfo");
    const kib = Number(meminfo.match(/^MemTotal:\s+(\d+) kB/m)?.[1]);
    return Number.isFinite(kib) && kib > 0 ? Math.floor(kib / 1024 / 2) : undefined;
  } catch {
    return undefined;
  }
}
