// Tables for the terminal, and the one-line summary `deno task bench` ends with.
import { coldMedian, RUNNING_LABEL, type ScenarioResult, SOAK_REST_S } from "./measure.ts";
import { ACTIONS } from "./sides.ts";
import { median, ms, times } from "./stats.ts";

/** The figures the summary line is made of. */
export interface Overall {
  medianRatio: number;
  worst: { action: string; ratio: number };
  coldExtraMs: number;
  /** The same, timed from the first question to an lspgate already running (as agents use it). */
  coldRunningExtraMs: number;
  rssMiB: number;
  sandbox: { medianRatio: number; coldExtraMs: number };
}

/** Prints one scenario's tables. */
export function printScenario(result: ScenarioResult, log: (line: string) => void): void {
  const labels = Object.keys(result.actions.definition ?? {});
  const others = labels.filter((l) => l !== "direct");
  const pad = (text: string, width: number) => text.padEnd(width);
  const width = 26;
  log(
    "  " + "action".padEnd(18) + labels.map((l) => pad(`${l} med / p95 ms`, width)).join("") +
      others.map((l) => pad(`${l}/direct`, l.length + 9)).join(""),
  );
  for (const action of ACTIONS) {
    const row = result.actions[action];
    if (!row) continue;
    const cells = labels.map((l) =>
      pad(`${ms(row[l].median)} / ${ms(row[l].p95)} (n=${row[l].n})`, width)
    );
    const ratios = others.map((l) => pad(times(row[l].median / row.direct.median), l.length + 9));
    log("  " + action.padEnd(18) + cells.join("") + ratios.join(""));
  }
  const diagnostics = result.actions.diagnostics;
  if (diagnostics?.lspgate && diagnostics.direct) {
    log(
      `  on-disk edit → its diagnostics: lspgate ${ms(diagnostics.lspgate.median)} ms, the ` +
        `server's own answer to the direct client ${ms(diagnostics.direct.median)} ms (` +
        `${signed(diagnostics.lspgate.median - diagnostics.direct.median)} ms)`,
    );
  }
  if (result.cold) {
    const cold = Object.keys(result.cold).map((l) =>
      `${l} ${ms(coldMedian(result, l, "definition"))} / ${ms(coldMedian(result, l, "references"))}`
    );
    log(`  cold start to first correct definition / complete references (ms): ${cold.join(", ")}`);
  }
  if (result.coldServerMiB) {
    const peaks = Object.entries(result.coldServerMiB).map(([label, runs]) =>
      `${label} ${Math.round(median(runs))}`
    );
    log(`  server process tree, peak RSS during a cold start (MiB): ${peaks.join(", ")}`);
  }
  if (result.concurrent) {
    const parts = Object.entries(result.concurrent).map(([l, c]) =>
      `${l} ${ms(c.ms)} ms (${c.ok} correct)`
    );
    log(`  concurrent definitions, all at once: ${parts.join(", ")}`);
  }
  if (result.manyFiles) {
    for (const [label, modes] of Object.entries(result.manyFiles)) {
      log(
        `  many-file diagnostics, ${label}: ` +
          Object.entries(modes).map(([mode, t]) => `${mode} ${ms(t)} ms`).join("; "),
      );
    }
  }
  const m = result.memory;
  log(
    `  lspgate RSS at rest ${ms(m.atRest ?? NaN)} MiB (${m.servers ?? "?"} server(s) running), ` +
      `under load ${ms(m.underLoad ?? NaN)} MiB` +
      (m.sandboxAtRest ? `, sandboxed at rest ${ms(m.sandboxAtRest)} MiB` : "") +
      (m.compareAtRest ? `, compared checkout at rest ${ms(m.compareAtRest)} MiB` : "") +
      `; the server itself (direct) ${ms(m.serverDirect ?? NaN)} MiB`,
  );
  if (result.soak) {
    const { rss, rested } = result.soak;
    const mib = (n: number) => n.toFixed(0);
    log(
      `  soak: ${result.soak.requests} requests in ${result.soak.seconds.toFixed(1)} s, lspgate ` +
        `RSS at start ${mib(rss[0].mib)} MiB, max ${mib(Math.max(...rss.map((r) => r.mib)))}, ` +
        `at end ${mib(rss[rss.length - 1].mib)}, ${SOAK_REST_S} s later ${mib(rested)}`,
    );
  }
}

function signed(value: number): string {
  return `${value >= 0 ? "+" : "-"}${ms(Math.abs(value))}`;
}

/** The run's figures over every scenario. */
export function overall(results: ScenarioResult[]): Overall {
  const ratios: { action: string; ratio: number }[] = [];
  const sandboxRatios: number[] = [];
  for (const result of results) {
    for (const action of ACTIONS) {
      const row = result.actions[action];
      if (!row?.direct || !row.lspgate) continue;
      ratios.push({
        action: `${result.server}.${action}`,
        ratio: row.lspgate.median / row.direct.median,
      });
      if (row["lspgate+sandbox"]) {
        sandboxRatios.push(row["lspgate+sandbox"].median / row.direct.median);
      }
    }
  }
  const worst = ratios.reduce((a, b) => (b.ratio > a.ratio ? b : a), {
    action: "-",
    ratio: -Infinity,
  });
  const coldExtra = (label: string) =>
    Math.max(
      ...results.filter((r) => r.cold?.[label]).map((r) =>
        coldMedian(r, label, "definition") - coldMedian(r, "direct", "definition")
      ),
    );
  return {
    medianRatio: median(ratios.map((r) => r.ratio)),
    worst,
    coldExtraMs: coldExtra("lspgate"),
    coldRunningExtraMs: coldExtra(RUNNING_LABEL),
    // With one server where a scenario had just one running; else the smallest count seen.
    rssMiB: Math.max(
      ...results.filter((r) => r.memory.servers === fewestServers(results)).map((r) =>
        r.memory.atRest ?? 0
      ),
    ),
    sandbox: { medianRatio: median(sandboxRatios), coldExtraMs: coldExtra("lspgate+sandbox") },
  };
}

function fewestServers(results: ScenarioResult[]): number | undefined {
  const counts = results.map((r) => r.memory.servers).filter((n) => n !== undefined);
  return counts.length ? Math.min(...counts) : undefined;
}

/** `overhead: median X.XX× raw (worst ACTION Y.YY×), cold +N ms, RSS M MB`. */
export function summaryLine(o: Overall): string {
  const signed = (n: number) =>
    Number.isFinite(n) ? `${n >= 0 ? "+" : "-"}${Math.abs(Math.round(n))}` : "+?";
  return `overhead: median ${o.medianRatio.toFixed(2)}× raw (worst ${o.worst.action} ` +
    `${o.worst.ratio.toFixed(2)}×), cold ${signed(o.coldExtraMs)} ms ` +
    `(${signed(o.coldRunningExtraMs)} ms on a running lspgate), RSS ${Math.round(o.rssMiB)} MB`;
}
