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

/** One process: its parent, and its resident memory where the table was read with `ps`. */
export interface ProcessFacts {
  ppid: number;
  rssKiB?: number;
}

const PAGE_KIB = 4;

/**
 * Whether /proc can be read here. Deno asks `--allow-all` for any path under /proc, so under
 * `deno task start`'s grant it cannot, and procps's `ps` (reading /proc for us: `--allow-run`)
 * gives the same table; learned once.
 */
let procReadable: boolean | undefined;

/**
 * A snapshot of every process's parent, to find several trees from one read of `/proc`;
 * undefined where neither /proc nor `ps` can be read (not Linux, no procps, nothing granted).
 */
export function readProcesses(): ProcessTable | undefined {
  if (procReadable !== false) {
    const table = readProc();
    if (table) return table;
  }
  const ps = psCommand();
  if (!ps) return undefined;
  try {
    const out = ps.outputSync();
    return out.success ? parsePs(new TextDecoder().decode(out.stdout)) : undefined;
  } catch {
    return undefined;
  }
}

/** readProcesses() off the thread where it needs `ps`: the memory budget's checks. */
export async function readProcessesSoon(): Promise<ProcessTable | undefined> {
  if (procReadable !== false) return readProcesses();
  const ps = psCommand();
  if (!ps) return undefined;
  try {
    const out = await ps.output();
    return out.success ? parsePs(new TextDecoder().decode(out.stdout)) : undefined;
  } catch {
    return undefined;
  }
}

function readProc(): ProcessTable | undefined {
  const processes = new Map<number, ProcessFacts>();
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
    procReadable = true;
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) procReadable = false;
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

/** Where procps's ps is: the system's own (never one found on a PATH a repository could name). */
const PS_PATHS = ["/usr/bin/ps", "/bin/ps"];

function psCommand(): Deno.Command | undefined {
  const path = PS_PATHS.find((candidate) => {
    try {
      return Deno.statSync(candidate).isFile;
    } catch {
      return false;
    }
  });
  if (!path) return undefined;
  // No environment: PS_FORMAT and PS_PERSONALITY would change what it prints.
  return new Deno.Command(path, {
    args: ["-e", "-o", "pid=,ppid=,rss="],
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  });
}

/** `ps -e -o pid=,ppid=,rss=`'s lines (resident memory in KiB, as /proc's statm has it in pages). */
export function parsePs(text: string): ProcessTable | undefined {
  const processes = new Map<number, ProcessFacts>();
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length !== 3) continue;
    const [pid, ppid, rssKiB] = fields.map(Number);
    if ([pid, ppid, rssKiB].every(Number.isInteger)) processes.set(pid, { ppid, rssKiB });
  }
  return processes.size ? processes : undefined;
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
    total += processes.get(next)?.rssKiB ?? residentKiB(next);
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
 * `/proc/meminfo`, or procps's `free` where Deno may not read /proc), or undefined (no budget)
 * where neither can be read.
 */
export function defaultBudgetMiB(): number | undefined {
  const kib = memTotalKiB();
  return kib !== undefined && kib > 0 ? Math.floor(kib / 1024 / 2) : undefined;
}

function memTotalKiB(): number | undefined {
  try {
    const meminfo = Deno.readTextFileSync("/proc/meminfo");
    return Number(meminfo.match(/^MemTotal:\s+(\d+) kB/m)?.[1]) || undefined;
  } catch {
    // Not granted (Deno asks --allow-all for /proc): procps's free, as ps above.
  }
  for (const path of ["/usr/bin/free", "/bin/free"]) {
    try {
      const out = new Deno.Command(path, {
        args: ["-k"],
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).outputSync();
      const total = /^Mem:\s+(\d+)/m.exec(new TextDecoder().decode(out.stdout))?.[1];
      if (out.success && total) return Number(total);
    } catch {
      // Not here, or not allowed to run: the next.
    }
  }
  return undefined;
}
