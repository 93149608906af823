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
import type { MemoryReport, ServerEntry } from "./manager_types.ts";
import { field, nestedDepth, statusTable } from "./proc_namespace.ts";

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

/** Every running server's process tree measured now, as `status` reports it (budget aside). */
export function measureServers(entries: readonly ServerEntry[]): MemoryReport {
  const processes = readProcesses();
  const servers = budgetServers(entries, processes);
  const rssMiB = new Map<string, number>();
  for (const { key, rssMiB: mib } of servers) {
    if (mib !== undefined) rssMiB.set(key, Math.round(mib));
  }
  const totalMiB = processes
    ? Math.round(servers.reduce((sum, s) => sum + (s.rssMiB ?? 0), 0))
    : undefined;
  return { processes, rssMiB, totalMiB };
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
 * Whether Deno may read /proc here: it asks `--allow-all` for any path under it, so under
 * `deno task start`'s grant it may not, and `cat` reads it for lspgate (its `--allow-run`);
 * learned once.
 */
let procReadable: boolean | undefined;

/**
 * A snapshot of every process's parent, to find several trees from one read of `/proc`;
 * undefined where /proc cannot be read, by Deno or through `cat` (not Linux, nothing granted).
 * Keyed by pid as lspgate sees them, also where /proc is another PID namespace's
 * (proc_namespace.ts).
 */
export function readProcesses(): ProcessTable | undefined {
  if (procReadable !== false) {
    const table = readProc();
    if (table) return table;
  }
  try {
    const stats = catProc("stat")?.outputSync().stdout;
    if (!stats) return undefined;
    const text = new TextDecoder().decode(stats);
    if (nestedDepth(text) === 0) return parseStats(text);
    const statuses = catProc("status")?.outputSync().stdout;
    return statuses && fromStatuses(new TextDecoder().decode(statuses));
  } catch {
    return undefined;
  }
}

/** readProcesses() without waiting on the thread where it runs `cat`: the memory budget's checks. */
export async function readProcessesSoon(): Promise<ProcessTable | undefined> {
  if (procReadable !== false) {
    const table = readProc();
    if (table) return table;
  }
  try {
    const stats = (await catProc("stat")?.output())?.stdout;
    if (!stats) return undefined;
    const text = new TextDecoder().decode(stats);
    if (nestedDepth(text) === 0) return parseStats(text);
    const statuses = (await catProc("status")?.output())?.stdout;
    return statuses && fromStatuses(new TextDecoder().decode(statuses));
  } catch {
    return undefined;
  }
}

/**
 * The table from `cat`'s own status and every process's, where /proc numbers processes in an
 * outer namespace: lspgate's subtree, lspgate being `cat`'s parent.
 */
function fromStatuses(text: string): ProcessTable | undefined {
  const lspgate = field(text, "PPid");
  if (lspgate === undefined) return undefined;
  const table = statusTable(text, nestedDepth(text), lspgate);
  return table.size ? table : undefined;
}

function readProc(): ProcessTable | undefined {
  const processes = new Map<number, ProcessFacts>();
  let entries: Iterable<Deno.DirEntry>;
  let self: string;
  try {
    entries = Deno.readDirSync("/proc");
    self = Deno.readTextFileSync("/proc/self/status");
    procReadable = true;
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) procReadable = false;
    return undefined;
  }
  const depth = nestedDepth(self);
  const statuses: string[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name)) continue;
    const pid = Number(entry.name);
    try {
      if (depth > 0) {
        statuses.push(Deno.readTextFileSync(`/proc/${pid}/status`));
        continue;
      }
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      // The command name may hold spaces and parentheses: the fields follow its last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(fields[1]);
      processes.set(pid, { ppid });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  if (depth > 0) return statusTable(statuses.join("\n"), depth, field(self, "Pid") ?? 0);
  return processes;
}

/** The system's own programs (never ones found on a PATH a repository could name). */
function systemProgram(name: string): string | undefined {
  return [`/usr/bin/${name}`, `/bin/${name}`].find((candidate) => {
    try {
      return Deno.statSync(candidate).isFile;
    } catch {
      return false;
    }
  });
}

/**
 * `cat` of its own status, then of every process's `stat` or `status` file, the shell expanding
 * the names Deno may not list. procps's `ps` was tried first and fails inside sandbox-runtime after
 * its first run ("fatal library error, lookup self"); `cat` does not. No environment; a process
 * that ends meanwhile is left out.
 */
function catProc(file: "stat" | "status"): Deno.Command | undefined {
  const sh = systemProgram("sh");
  const cat = systemProgram("cat");
  if (!sh || !cat) return undefined;
  return new Deno.Command(sh, {
    // `exec`: cat is lspgate's own child, so its status names lspgate as its parent.
    args: ["-c", `exec ${cat} /proc/self/status /proc/[0-9]*/${file}`],
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  });
}

/**
 * Every `/proc/<pid>/stat` line, concatenated: pid, parent and resident pages. The command name
 * (at most 15 bytes) may hold spaces, parentheses and newlines: a record is matched whole, the
 * name ending at the last `) ` that leaves a well-formed rest.
 */
export function parseStats(text: string): ProcessTable | undefined {
  const processes = new Map<number, ProcessFacts>();
  const record = /(?:^|\n)(\d+) \([\s\S]{0,64}\) [A-Za-z] (-?\d+)((?: -?\d+){20})(?= |\n|$)/g;
  for (const match of text.matchAll(record)) {
    const rssPages = Number(match[3].trim().split(" ")[19]);
    processes.set(Number(match[1]), { ppid: Number(match[2]), rssKiB: rssPages * PAGE_KIB });
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
  let total = 0;
  for (const pid of forestPids(pids, processes)) {
    total += processes.get(pid)?.rssKiB ?? residentKiB(pid);
  }
  return total;
}

/** `pids` and all their descendants, each once. */
export function forestPids(pids: readonly number[], processes: ProcessTable): number[] {
  const children = new Map<number, number[]>();
  for (const [child, { ppid }] of processes) {
    const list = children.get(ppid);
    if (list) list.push(child);
    else children.set(ppid, [child]);
  }
  const stack = [...pids];
  const seen = new Set<number>();
  while (stack.length) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...children.get(next) ?? []);
  }
  return [...seen];
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
 * `/proc/meminfo`, read through `cat` where Deno may not read /proc), or undefined (no budget)
 * where neither can be read.
 */
export function defaultBudgetMiB(): number | undefined {
  // The machine's memory does not change: read once (through `cat`, a process, where Deno may not
  // read /proc), not again for each workspace a daemon opens.
  const kib = machineKiB === null ? machineKiB = memTotalKiB() : machineKiB;
  return kib !== undefined && kib > 0 ? Math.floor(kib / 1024 / 2) : undefined;
}

/** MemTotal in KiB once read; null before. */
let machineKiB: number | undefined | null = null;

function memTotalKiB(): number | undefined {
  let meminfo: string;
  try {
    meminfo = Deno.readTextFileSync("/proc/meminfo");
  } catch {
    // Not granted (Deno asks --allow-all for /proc): `cat` reads it, as the process table above.
    const cat = systemProgram("cat");
    if (!cat) return undefined;
    try {
      const out = new Deno.Command(cat, {
        args: ["/proc/meminfo"],
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).outputSync();
      meminfo = new TextDecoder().decode(out.stdout);
    } catch {
      return undefined;
    }
  }
  return Number(meminfo.match(/^MemTotal:\s+(\d+) kB/m)?.[1]) || undefined;
}
