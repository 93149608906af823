// `deno task bench [--quick]`: lspgate against a minimal direct LSP client, side by side.
//
// The same server binary (found by lspgate's own adapter), the same workspace (each side on its own
// copy, so one side's edits never reach the other) and the same queries; sides interleaved in one
// run, the first side rotating each round, so noise on a shared machine hits all alike. Reported:
// per action median, p95 and lspgate/direct; cold start to the first correct definition and the
// first complete references; concurrent requests; many-file diagnostics; lspgate's memory at rest,
// under load and over a soak. Nothing here is asserted: timings belong in a report, not a test.
//
// Flags: --quick (under two minutes), --only NAME (scenario names containing it), --samples N,
// --worktrees N (git worktrees of rxjs and pygments, one daemon for all vs one lspgate each),
// --soak N, --no-sandbox (skip the `--sandbox auto` side), --lspgate DIR (run another checkout),
// --compare DIR (another checkout as one more side, e.g. before/after a change), --out FILE
// (JSON; the full run writes .lspgate/bench/results.json by default).
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { useCheckout } from "./lspgate_process.ts";
import {
  copyWorkspace,
  measure,
  missingServer,
  type Plan,
  type ScenarioResult,
} from "./measure.ts";
import { overall, printScenario, summaryLine } from "./report.ts";
import { SCENARIOS } from "./scenarios.ts";
import { measureSyntax } from "./syntax.ts";
import { measureRestMemory, type RestMemory } from "./rest_memory.ts";
import { measureWorktrees, type WorktreeSide } from "./worktrees.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    quick: { type: "boolean" },
    only: { type: "string" },
    samples: { type: "string" },
    soak: { type: "string" },
    "no-sandbox": { type: "boolean" },
    worktrees: { type: "string" },
    lspgate: { type: "string" },
    compare: { type: "string" },
    out: { type: "string" },
  },
});
const quick = values.quick ?? false;
if (values.lspgate) useCheckout(values.lspgate);
const log = (line: string) => console.log(line);

const samples = Number(values.samples ?? (quick ? 10 : 40));
const plan = (real: boolean, first: boolean): Plan => ({
  samples,
  diagnosticsSamples: Math.max(3, Math.round(samples / (quick ? 3 : 2))),
  coldRuns: quick ? 2 : 3,
  concurrent: 200,
  // One soak per run, on the first scenario.
  soak: first ? Number(values.soak ?? (quick ? 1_000 : 10_000)) : 0,
  manyFiles: real && !quick ? 64 : 0,
  sandbox: !values["no-sandbox"] && (!quick || first),
  compare: values.compare
    ? { home: values.compare, label: `lspgate@${values.compare.split("/").filter(Boolean).pop()}` }
    : undefined,
});

// --quick: the real workspaces of typescript-language-server and pyright; the full run: all.
const chosen = SCENARIOS.filter((s) =>
  values.only ? s.name.includes(values.only) : quick ? s.real && s.server !== "clangd" : true
);

const started = performance.now();
log(`lspgate benchmark${quick ? " (quick)" : ""} on ${machine().summary}`);
const results: ScenarioResult[] = [];
let soaked = false;
for (const scenario of chosen) {
  log(`\n${scenario.name}: ${scenario.source}`);
  const folder = await scenario.folder();
  if (!folder) continue;
  const probe = await copyWorkspace(folder, scenario);
  const missing = await missingServer(scenario, probe);
  await Deno.remove(probe, { recursive: true });
  if (missing) {
    log(`  (skipped: ${missing})`);
    continue;
  }
  const thisPlan = plan(scenario.real, !soaked);
  soaked ||= thisPlan.soak > 0;
  try {
    const result = await measure(scenario, folder, thisPlan, log);
    printScenario(result, log);
    results.push(result);
  } catch (error) {
    log(`  FAILED: ${error instanceof Error ? error.message : error}`);
  }
}

// Worktrees of one repository, each asked by its own client: one daemon for all, or one lspgate
// each (--worktrees 0 skips it).
const worktreeCount = Number(values.worktrees ?? (quick ? 2 : 8));
const worktrees: Record<string, WorktreeSide[]> = {};
for (
  const name of worktreeCount > 0 && !values.only ? ["typescript/rxjs", "pyright/pygments"] : []
) {
  const scenario = SCENARIOS.find((s) => s.name === name)!;
  log(`\nworktrees: ${name}`);
  try {
    worktrees[name] = await measureWorktrees(scenario, worktreeCount, quick ? 5 : 20, log);
  } catch (error) {
    log(`  FAILED: ${error instanceof Error ? error.message : error}`);
  }
}

// The syntax parsers (answers with no server): grammar load and parse times.
log("");
await measureSyntax(log, { large: !quick });

// Memory at rest as run from this checkout and as shipped (one bundled file).
log("");
let restMemory: RestMemory[] = [];
try {
  restMemory = await measureRestMemory(log, { rounds: quick ? 1 : 3 });
} catch (error) {
  log(`  memory at rest: FAILED: ${error instanceof Error ? error.message : error}`);
}

const figures = overall(results);
const seconds = (performance.now() - started) / 1000;
log("");
if (Number.isFinite(figures.sandbox.medianRatio)) {
  log(
    `sandbox (--sandbox auto): median ${figures.sandbox.medianRatio.toFixed(2)}× direct, ` +
      `cold +${Math.round(figures.sandbox.coldExtraMs)} ms over the direct client`,
  );
}
log(`run took ${seconds.toFixed(0)} s`);
const out = values.out ??
  (quick
    ? undefined
    : fileURLToPath(new URL("../../.lspgate/bench/results.json", import.meta.url)));
if (out) {
  await Deno.mkdir(join(out, ".."), { recursive: true });
  await Deno.writeTextFile(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        quick,
        seconds,
        machine: machine(),
        figures,
        results,
        worktrees,
        restMemory,
      },
      null,
      2,
    ) + "\n",
  );
  log(`results written to ${out}`);
}
log(summaryLine(figures));

function machine() {
  const cpu = /model name\s*:\s*(.+)/.exec(read("/proc/cpuinfo"))?.[1]?.trim() ?? "unknown CPU";
  const memKb = Number(/MemTotal:\s+(\d+)/.exec(read("/proc/meminfo"))?.[1] ?? 0);
  const cores = navigator.hardwareConcurrency;
  const load = Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
  return {
    cpu,
    cores,
    memoryGiB: Math.round(memKb / 1024 / 1024),
    deno: Deno.version.deno,
    kernel: Deno.osRelease(),
    loadAtStart: load,
    summary: `${cpu}, ${cores} cores, ${Math.round(memKb / 1024 / 1024)} GiB, Deno ` +
      `${Deno.version.deno}, load ${load}`,
  };
}

function read(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
}
