// Cold start alone, more runs than the benchmark's: a fresh workspace copy and a fresh process
// per run, until the first correct definition, for the direct client, lspgate (`--sandbox none`,
// the start task's flags) and optionally other checkouts or bundles; sides rotate. Prints medians
// in ms.
//
// `--running` adds what an agent sees: its lspgate has been up for a while (it answered `status`,
// then sat idle for IDLE_MS) when the first question comes, so the time is counted from that
// question, the server still cold. The direct client's time is counted from its spawn either way.
//
// Usage: deno run -A tests/bench/cold.ts [--only pyright/pygments] [--runs 5] [--running]
//   [--compare DIR|BUNDLE.js …] (e.g. --compare dist/lspgate.js: as the npm package runs)
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { copyWorkspace } from "./measure.ts";
import { DirectSide, type Expected, GateSide, locate, type Side } from "./sides.ts";
import { SCENARIOS } from "./scenarios.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    only: { type: "string" },
    runs: { type: "string" },
    compare: { type: "string", multiple: true },
    running: { type: "boolean" },
  },
});
/** How long lspgate sits idle, up, before the first question in `--running`. */
const IDLE_MS = 1000;
const RUNNING = ", running";
const runs = Number(values.runs ?? 5);
const scenario = SCENARIOS.find((s) => s.name.includes(values.only ?? "pyright/pygments"));
if (!scenario) throw new Error(`no scenario ${values.only}`);
const folder = await scenario.folder();
if (!folder) throw new Error(`${scenario.name} is not available`);

const compared = values.compare ?? [];
const gates = ["lspgate", ...compared];
const kinds = ["direct", ...gates, ...values.running ? gates.map((g) => g + RUNNING) : []];
const times = new Map<string, number[]>();
for (let run = 0; run < runs; run++) {
  for (const kind of [...kinds.slice(run % kinds.length), ...kinds.slice(0, run % kinds.length)]) {
    const root = await copyWorkspace(folder, scenario);
    const target = await locate(root, { ...scenario.definition.expect, symbol: "" });
    const expected: Expected = {
      definition: { file: scenario.definition.expect.file, line: target.line },
      references: 1,
    };
    const running = kind.endsWith(RUNNING);
    const gate = running ? kind.slice(0, -RUNNING.length) : kind;
    let t0 = performance.now();
    const side: Side = kind === "direct"
      ? await DirectSide.start(root, scenario, expected)
      : await GateSide.start(
        root,
        scenario,
        expected,
        "none",
        compared.includes(gate) ? { home: resolve(gate), label: gate } : undefined,
      );
    try {
      if (running) {
        await (side as GateSide).ask({ action: "status" });
        await new Promise((r) => setTimeout(r, IDLE_MS));
        t0 = performance.now();
      }
      while (!(await side.definitionCorrect())) {
        if (kind === "direct") await new Promise((r) => setTimeout(r, 10));
      }
      times.set(kind, [...times.get(kind) ?? [], performance.now() - t0]);
    } finally {
      await side.close().catch(() => {});
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${scenario.name}: cold start to the first correct definition, median of ${runs} (ms)`);
for (const [kind, list] of times) {
  console.log(
    `  ${kind.padEnd(Math.max(8, ...kinds.map((k) => k.length)))} ${Math.round(median(list))}  (${
      list.map(Math.round).join(", ")
    })`,
  );
}
