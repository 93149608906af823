// What agent users run: N git worktrees of one real repository, each asked by its own client.
// Two ways side by side: one daemon for all of them (`--daemon`: lspgate's one daemon per user),
// and one lspgate per worktree as peers run it (each its own servers). Reported: the total
// memory of lspgate and every server it started, the cold start of each worktree's first correct
// definition, and the warm median. Nothing is asserted: timings belong in a report.
//
// The total is given twice. RSS summed over processes counts the pages they share (the Deno
// binary's code, ~30 MiB in each Deno process) once per process, so it grows with the number of
// processes, not with the memory they take: the daemon column has a client per worktree and a
// watcher process per root beside the daemon. PSS (each shared page divided among the processes
// that map it) sums to what the machine gives them.
//
// `deno run -A tests/bench/worktrees.ts [--scenario typescript/rxjs] [--worktrees 8] [--samples 20]`
// (also part of `deno task bench`: 8 worktrees in the full run, 2 in --quick).
import { parseArgs } from "node:util";
import { forestPids, forestRssKiB, readProcesses } from "../../src/servers/memory.ts";
import { copyWorkspace } from "./measure.ts";
import { LspgateProcess } from "./lspgate_process.ts";
import { type Scenario, SCENARIOS } from "./scenarios.ts";
import { locate } from "./sides.ts";
import { median } from "./stats.ts";

/** One way of serving the worktrees, measured. */
export interface WorktreeSide {
  label: string;
  /** lspgate's processes and every server they started, together: their RSS summed. */
  totalMiB: number;
  /** The same processes' PSS summed (pages shared between them counted once). */
  totalPssMiB: number;
  /** Each worktree's first correct definition, from its client's start (ms). */
  coldMs: number[];
  /** Warm definitions over every worktree (ms). */
  warmMedianMs: number;
}

/** Measures `count` worktrees of `scenario` both ways; logs a table. */
export async function measureWorktrees(
  scenario: Scenario,
  count: number,
  samples: number,
  log: (line: string) => void,
): Promise<WorktreeSide[]> {
  const folder = await scenario.folder();
  if (!folder) throw new Error(`${scenario.name}: no workspace`);
  const repo = await copyWorkspace(folder, scenario);
  const git = async (cwd: string, ...args: string[]) => {
    const out = await new Deno.Command("git", {
      args,
      cwd,
      env: {
        GIT_AUTHOR_NAME: "bench",
        GIT_AUTHOR_EMAIL: "bench@localhost",
        GIT_COMMITTER_NAME: "bench",
        GIT_COMMITTER_EMAIL: "bench@localhost",
      },
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`git ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
  };
  await git(repo, "init", "-q");
  await git(repo, "add", "-A");
  await git(repo, "commit", "-qm", "bench");
  const roots = [repo];
  for (let i = 1; i < count; i++) {
    const tree = `${repo}-wt${i}`;
    await git(repo, "worktree", "add", "-q", tree);
    roots.push(tree);
  }
  log(`  ${count} worktrees of ${scenario.source}`);
  const sides: WorktreeSide[] = [];
  try {
    for (const shared of [true, false]) {
      const side = await measureSide(scenario, roots, shared, samples);
      sides.push(side);
      log(
        `  ${side.label.padEnd(26)} total PSS ${Math.round(side.totalPssMiB)} MiB (RSS ` +
          `${Math.round(side.totalMiB)}); cold median ` +
          `${Math.round(median(side.coldMs))} ms (max ${Math.round(Math.max(...side.coldMs))}); ` +
          `warm median ${side.warmMedianMs.toFixed(1)} ms`,
      );
    }
  } finally {
    for (const root of roots) await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  return sides;
}

async function measureSide(
  scenario: Scenario,
  roots: string[],
  shared: boolean,
  samples: number,
): Promise<WorktreeSide> {
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-bench-rt-" }));
  await Deno.chmod(runtime, 0o700);
  const extra = shared
    ? {
      // What reaching the daemon takes: its private folder, the user's id, its Unix socket.
      deno: [`--allow-write=${runtime}`, "--allow-sys", "--allow-net"],
      args: ["--daemon"],
      env: { XDG_RUNTIME_DIR: runtime },
    }
    : { env: { XDG_RUNTIME_DIR: runtime } };
  const clients: LspgateProcess[] = [];
  const coldMs: number[] = [];
  const warm: number[] = [];
  let daemonPid: number | undefined;
  try {
    const place = await locate(roots[0], scenario.definition);
    const definition = {
      action: "definition",
      file: place.file,
      line: place.line + 1,
      column: place.column,
    };
    const correct = (answer: { ok: boolean; details?: Record<string, unknown> }) =>
      answer.ok &&
      (answer.details?.locations as { file: string }[] | undefined)?.[0]?.file ===
        scenario.definition.expect.file;
    // One worktree after another, as an agent opens them.
    for (const root of roots) {
      const t0 = performance.now();
      const client = new LspgateProcess(root, "auto", undefined, extra);
      clients.push(client);
      for (let tries = 0;; tries++) {
        const answer = await client.request(definition);
        if (correct(answer)) break;
        if (tries > 600) throw new Error(`${root}: no correct definition (${client.stderrTail()})`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      coldMs.push(performance.now() - t0);
    }
    for (let n = 0; n < samples; n++) {
      for (const client of clients) {
        const t0 = performance.now();
        const answer = await client.request(definition);
        warm.push(performance.now() - t0);
        if (!correct(answer)) throw new Error(`${client.root}: wrong warm definition`);
      }
    }
    if (shared) {
      const status = await clients[0].request({ action: "status" });
      daemonPid = status.details?.daemonPid as number | undefined;
    }
    const processes = readProcesses();
    if (!processes) throw new Error("/proc cannot be read");
    const pids = [...clients.map((c) => c.pid), ...(daemonPid ? [daemonPid] : [])];
    const totalKiB = forestRssKiB(pids, processes);
    const pssKiB = forestPids(pids, processes).reduce((sum, pid) => sum + proportionalKiB(pid), 0);
    return {
      label: shared ? "one daemon for all" : "one lspgate per worktree",
      totalMiB: totalKiB / 1024,
      totalPssMiB: pssKiB / 1024,
      coldMs,
      warmMedianMs: median(warm),
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    if (daemonPid) {
      try {
        Deno.kill(daemonPid, "SIGTERM");
      } catch {
        // Gone already.
      }
    }
    await Deno.remove(runtime, { recursive: true }).catch(() => {});
  }
}

/** A process's PSS in KiB (`smaps_rollup`); 0 once it is gone. */
function proportionalKiB(pid: number): number {
  try {
    const rollup = Deno.readTextFileSync(`/proc/${pid}/smaps_rollup`);
    return Number(rollup.match(/^Pss:\s+(\d+) kB/m)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      scenario: { type: "string", default: "typescript/rxjs" },
      worktrees: { type: "string", default: "8" },
      samples: { type: "string", default: "20" },
    },
  });
  const scenario = SCENARIOS.find((s) => s.name === values.scenario);
  if (!scenario) throw new Error(`no scenario ${values.scenario}`);
  console.log(`${scenario.name}, ${values.worktrees} worktrees:`);
  await measureWorktrees(scenario, Number(values.worktrees), Number(values.samples), console.log);
}
