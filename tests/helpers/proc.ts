// What /proc says, read here (tests run with -A), to check lspgate's own measurements against.

/** Resident memory of `pid` and all its descendants in MiB, from /proc's VmRSS. */
export function procTreeMiB(pid: number): number {
  let kib = Number(
    Deno.readTextFileSync(`/proc/${pid}/status`).match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? 0,
  );
  for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
    const children = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/children`).trim();
    for (const child of children ? children.split(" ") : []) {
      kib += procTreeMiB(Number(child)) * 1024;
    }
  }
  return kib / 1024;
}
