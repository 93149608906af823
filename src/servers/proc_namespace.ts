// /proc mounted for another PID namespace than lspgate's numbers every process differently from the
// pids lspgate knows its servers by. Inside sandbox-runtime it is so: /proc is srt's outer
// namespace, lspgate runs in one nested in it, and `/proc/<a server's pid>` is some other process
// (or none). Each process's `NSpid` (its pid in every namespace, outermost first) maps the two.

import type { ProcessTable } from "./memory.ts";

/** How many PID namespaces the process whose `/proc/self/status` this is lies below /proc's. */
export function nestedDepth(selfStatus: string): number {
  const pids = nsPids(selfStatus);
  return pids ? pids.length - 1 : 0;
}

/**
 * The process table read from `/proc/<pid>/status` texts (concatenated), keyed by pid as seen
 * `depth` namespaces below /proc's: `root` (a pid in /proc's numbering: lspgate itself) and all
 * its descendants, the only processes whose pids there lspgate may take for its own (a sibling
 * namespace numbers its processes alike).
 */
export function statusTable(text: string, depth: number, root: number): ProcessTable {
  const outer = new Map<number, { ppid: number; rssKiB: number; inner?: number }>();
  for (const block of text.split(/\n(?=Name:)/)) {
    const pid = field(block, "Pid");
    const pids = nsPids(block);
    if (pid === undefined || !pids) continue;
    outer.set(pid, {
      ppid: field(block, "PPid") ?? 0,
      // Kernel threads have no VmRSS.
      rssKiB: field(block, "VmRSS") ?? 0,
      inner: pids.length > depth ? pids[depth] : undefined,
    });
  }
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of outer) children.set(ppid, [...children.get(ppid) ?? [], pid]);
  const table: ProcessTable = new Map();
  const stack = [root];
  const seen = new Set<number>();
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const process = outer.get(pid);
    if (process?.inner === undefined) continue;
    const parent = pid === root ? 0 : outer.get(process.ppid)?.inner ?? 0;
    table.set(process.inner, { ppid: parent, rssKiB: process.rssKiB });
    stack.push(...children.get(pid) ?? []);
  }
  return table;
}

/** A status file's `NAME:` number (the first), or undefined. */
export function field(status: string, name: string): number | undefined {
  const value = new RegExp(`^${name}:\\s*(\\d+)`, "m").exec(status)?.[1];
  return value === undefined ? undefined : Number(value);
}

function nsPids(status: string): number[] | undefined {
  const line = /^NSpid:[\t ]*([\d\t ]+)$/m.exec(status)?.[1].trim();
  return line ? line.split(/[\t ]+/).map(Number) : undefined;
}
