// One scenario, measured: warm per-action latency (interleaved, order rotated each round), memory
// at rest and under load, 200 concurrent requests, 64-file diagnostics, a soak, and cold start.
import { join } from "node:path";
import { ADAPTERS } from "../../adapters/mod.ts";
import { rssMiB, treeRssMiB } from "./lspgate_process.ts";
import { type Scenario, sourceFiles } from "./scenarios.ts";
import {
  type Action,
  ACTIONS,
  DirectSide,
  type Expected,
  GateSide,
  locate,
  type Side,
  writeEdit,
} from "./sides.ts";
import { median, summarize, type Summary } from "./stats.ts";

/** How much to measure. */
export interface Plan {
  samples: number;
  diagnosticsSamples: number;
  coldRuns: number;
  concurrent: number;
  /** Requests in the soak (0: none in this scenario). */
  soak: number;
  manyFiles: number;
  /** Measure `--sandbox auto` too. */
  sandbox: boolean;
  /** Another lspgate checkout measured beside this one (`--compare DIR`), and its label. */
  compare?: { home: string; label: string };
}

/** Everything measured on one scenario. */
export interface ScenarioResult {
  name: string;
  source: string;
  server: string;
  serverVersion?: string;
  sandboxed?: boolean;
  actions: Partial<Record<Action, Record<string, Summary>>>;
  cold?: Record<string, { definition: number[]; references: number[] }>;
  /** Per side, the peak RSS (MiB) of the language server's process tree in each cold start. */
  coldServerMiB?: Record<string, number[]>;
  concurrent?: Record<string, { ms: number; ok: number }>;
  manyFiles?: Record<string, Record<string, number>>;
  memory: {
    atRest?: number;
    underLoad?: number;
    sandboxAtRest?: number;
    compareAtRest?: number;
    /** Servers lspgate had running when `atRest` was measured (a workspace search starts all). */
    servers?: number;
    serverDirect?: number;
  };
  /** Wrong answers seen on the way (retried in warm-up). */
  notes: string[];
  soak?: {
    requests: number;
    seconds: number;
    /** RSS (MiB) at the start, every requests/20, and at the end. */
    rss: { n: number; mib: number }[];
    /** RSS (MiB) SOAK_REST_S after the end: what V8 and Deno's blocking pool give back idle. */
    rested: number;
  };
}

const WARM_TIMEOUT_MS = 180_000;
/**
 * How long after the soak RSS is sampled again: Deno's blocking pool ends idle threads after 10 s
 * and V8's memory reducer gives back heap pages within ~20 s (measured: 104 → 92 MiB by 18 s).
 */
export const SOAK_REST_S = 30;

/**
 * lspgate as a library on `root`, as a Deno agent embeds it (`mod.ts`, loaded only when asked):
 * a main session, no mutations, the default config.
 */
export async function openLibrarySession(root: string) {
  const { Session, ADAPTERS, defaultConfig } = await import("../../mod.ts");
  return await Session.open({
    root,
    role: "main",
    allowMutations: false,
    adapters: ADAPTERS,
    config: defaultConfig(),
  });
}

/** Copies a workspace into a fresh temp folder, with the scenario's extra files. */
export async function copyWorkspace(folder: string, scenario: Scenario): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-bench-" }));
  const cp = await new Deno.Command("cp", { args: ["-r", `${folder}/.`, dir] }).output();
  if (!cp.success) throw new Error(`copying ${folder} failed`);
  for (const [name, text] of Object.entries(scenario.extraFiles ?? {})) {
    await Deno.writeTextFile(join(dir, name), text);
  }
  return dir;
}

/** Why a scenario's server cannot run here, or undefined when it can. */
export async function missingServer(scenario: Scenario, root: string): Promise<string | undefined> {
  const adapter = ADAPTERS.find((a) => a.id === scenario.server);
  if (!adapter) return `no ${scenario.server} adapter in this checkout`;
  try {
    await adapter.resolve({ root, workspace: root, trusted: false });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.split(". ")[0] : String(error);
  }
}

async function until<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  pauseMs = 0,
): Promise<T> {
  const deadline = performance.now() + WARM_TIMEOUT_MS;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/** Rotates `sides` by `n`, so each goes first as often as the others. */
function rotated<T>(sides: T[], n: number): T[] {
  const k = n % sides.length;
  return [...sides.slice(k), ...sides.slice(0, k)];
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Files of the scenario's language for the many-files diagnostics, `count` of them. */
async function manyFiles(root: string, scenario: Scenario, count: number): Promise<string[]> {
  const found = await sourceFiles(root, scenario.extension);
  const others = found.filter((f) => f !== scenario.edit.file);
  // Spread over the tree rather than the first folder's files.
  const step = Math.max(1, Math.floor(others.length / count));
  return others.filter((_, i) => i % step === 0).slice(0, count);
}

/** Measures one scenario on a workspace folder. */
export async function measure(
  scenario: Scenario,
  folder: string,
  plan: Plan,
  log: (line: string) => void,
): Promise<ScenarioResult> {
  const result: ScenarioResult = {
    name: scenario.name,
    source: scenario.source,
    server: scenario.server,
    actions: {},
    memory: {},
    notes: [],
  };
  const roots = {
    direct: await copyWorkspace(folder, scenario),
    gate: await copyWorkspace(folder, scenario),
    sandbox: plan.sandbox ? await copyWorkspace(folder, scenario) : undefined,
    compare: plan.compare ? await copyWorkspace(folder, scenario) : undefined,
  };
  const target = await locate(roots.direct, { ...scenario.definition.expect, symbol: "" });
  const expected: Expected = {
    definition: { file: scenario.definition.expect.file, line: target.line },
    references: 1,
  };
  const sides: Side[] = [];
  try {
    const direct = await DirectSide.start(roots.direct, scenario, expected);
    const gate = await GateSide.start(roots.gate, scenario, expected, "none");
    const sandbox = roots.sandbox
      ? await GateSide.start(roots.sandbox, scenario, expected, "auto")
      : undefined;
    const compare = roots.compare
      ? await GateSide.start(roots.compare, scenario, expected, "none", plan.compare)
      : undefined;
    const gates = [gate, sandbox, compare].filter((side) => side !== undefined);
    sides.push(direct, ...gates);
    result.serverVersion = [direct.client.serverInfo?.name, direct.client.serverInfo?.version]
      .filter(Boolean).join(" ") || undefined;

    // Warm up: every side answers correctly before anything is timed.
    const t0 = performance.now();
    await Promise.all([
      (async () => {
        await until("direct definition", () => direct.definitionCorrect(), Boolean, 20);
        await until("direct idle", () => Promise.resolve(direct.busy), (busy) => !busy, 50);
        // The most references a loaded project gives: what every side must find.
        let last = -1;
        expected.references = await until(
          "direct references",
          async () => {
            const count = await direct.referenceCount();
            const stable = count === last;
            last = count;
            return stable ? count : -1;
          },
          (count) => count > 0,
          100,
        );
      })(),
      ...gates.map((side) =>
        until(`${side.label} definition`, () => side.definitionCorrect(), Boolean)
      ),
    ]);
    for (const side of gates) {
      await until(
        `${side.label} references`,
        () => side.referenceCount(),
        (n) => n >= expected.references,
      );
    }
    // Each action once, untimed; a wrong first answer is retried (and reported).
    for (const side of sides) {
      for (const action of ACTIONS) {
        for (let attempt = 1;; attempt++) {
          await side.prepare(action, 0);
          try {
            await side.run(action, 0);
            break;
          } catch (error) {
            const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
            result.notes.push(`warm-up: ${side.label} ${action} attempt ${attempt}: ${message}`);
            if (attempt === 5) throw error;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
      }
    }
    for (const note of result.notes) log(`  ${note}`);
    if (sandbox) {
      const status = await sandbox.ask({ action: "status" });
      result.sandboxed = status.details?.sandboxed === true;
    }
    log(
      `  warm in ${((performance.now() - t0) / 1000).toFixed(1)} s; ` +
        `${expected.references} references expected`,
    );

    // Per action, interleaved: each round runs every side once, the first side rotating.
    const samples = new Map<string, number[]>();
    for (let n = 1; n <= plan.samples; n++) {
      for (const action of ACTIONS) {
        if (action === "diagnostics" && n > plan.diagnosticsSamples) continue;
        for (const side of rotated(sides, n)) {
          await side.prepare(action, n);
          const key = `${action}|${side.label}`;
          const list = samples.get(key) ?? [];
          list.push(await timed(() => side.run(action, n)));
          samples.set(key, list);
        }
      }
    }
    for (const action of ACTIONS) {
      result.actions[action] = Object.fromEntries(
        sides.map((side) => [side.label, summarize(samples.get(`${action}|${side.label}`) ?? [])]),
      );
    }

    // Memory at rest: lspgate's whole process (its Workers are threads of it).
    await new Promise((resolve) => setTimeout(resolve, 500));
    result.memory.atRest = rssMiB(gate.pid);
    const status = await gate.ask({ action: "status" });
    result.memory.servers = ((status.details?.servers ?? []) as { state?: string }[])
      .filter((s) => s.state === "ready").length;
    if (sandbox) result.memory.sandboxAtRest = rssMiB(sandbox.pid);
    if (compare) result.memory.compareAtRest = rssMiB(compare.pid);
    result.memory.serverDirect = rssMiB(direct.serverPid);

    // Concurrent requests: all sent at once, each answer checked.
    result.concurrent = {};
    const loaded = [direct, gate, ...(compare ? [compare] : [])];
    for (const side of rotated(loaded, 1)) {
      let peak = 0;
      const sampler = side.pid
        ? setInterval(() => peak = Math.max(peak, rssMiB(side.pid!)), 10)
        : 0;
      let ok = 0;
      const ms = await timed(() =>
        Promise.all(
          Array.from({ length: plan.concurrent }, async () => {
            if (await side.definitionCorrect()) ok++;
          }),
        )
      );
      clearInterval(sampler);
      result.concurrent[side.label] = { ms, ok };
      if (side === gate) result.memory.underLoad = peak;
    }

    // Many files' diagnostics: all in one request versus one after another, after an edit to each.
    if (plan.manyFiles > 0) {
      const files = await manyFiles(roots.direct, scenario, plan.manyFiles);
      result.manyFiles = {};
      const modes: [string, boolean, boolean][] = [
        ["first open, pipelined", false, true],
        ["edited, pipelined", true, true],
        ["edited, one by one", true, false],
      ];
      for (const [index, [mode, edit, pipelined]] of modes.entries()) {
        for (const side of rotated(loaded, index)) {
          if (edit) {
            for (const file of files) {
              await writeEdit(side.root, file, scenario.edit.errorLine(100 + index));
            }
          }
          try {
            (result.manyFiles[side.label] ??= {})[mode] = await timed(() =>
              side.diagnoseMany(files, pipelined)
            );
          } catch (error) {
            // Reported, not fatal: the other measurements of the scenario still stand.
            const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
            result.notes.push(`${files.length}-file diagnostics, ${mode}: ${message}`);
            log(`  ${side.label}: ${files.length}-file diagnostics, ${mode}: ${message}`);
          }
        }
      }
      log(`  ${files.length}-file diagnostics done`);
    }

    // Soak: many requests through one lspgate, 8 in flight, its memory sampled.
    if (plan.soak > 0) {
      const started = performance.now();
      const rss: { n: number; mib: number }[] = [{ n: 0, mib: rssMiB(gate.pid) }];
      const every = Math.max(1, Math.floor(plan.soak / 20));
      // Cheap queries, so lspgate's own work dominates (diagnostics wait on the server).
      const mix: Action[] = ["definition", "hover", "symbols", "references"];
      let next = 0;
      const worker = async () => {
        while (next < plan.soak) {
          const n = ++next;
          await gate.run(mix[n % mix.length]);
          if (n % every === 0) rss.push({ n, mib: rssMiB(gate.pid) });
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      const seconds = (performance.now() - started) / 1000;
      rss.push({ n: plan.soak, mib: rssMiB(gate.pid) });
      await new Promise((resolve) => setTimeout(resolve, SOAK_REST_S * 1000));
      result.soak = { requests: plan.soak, seconds, rss, rested: rssMiB(gate.pid) };
    }
  } finally {
    await Promise.all(sides.splice(0).map((side) => side.close().catch(() => {})));
  }

  // Cold start: fresh processes and fresh copies, alternating which side goes first. "running":
  // as an agent meets it, lspgate already up (it answered `status`, then sat idle) when the first
  // question comes, the server still cold; timed from that question.
  result.cold = {};
  const kinds: ("direct" | "none" | "running" | "auto" | "compare")[] = [
    "direct",
    "none",
    "running",
    ...(plan.sandbox ? ["auto" as const] : []),
    ...(plan.compare ? ["compare" as const] : []),
  ];
  for (let run = 0; run < plan.coldRuns; run++) {
    for (const kind of rotated(kinds, run)) {
      const root = await copyWorkspace(folder, scenario);
      let t0 = performance.now();
      const side = kind === "direct"
        ? await DirectSide.start(root, scenario, expected)
        : kind === "compare"
        ? await GateSide.start(root, scenario, expected, "none", plan.compare)
        : kind === "running"
        ? await GateSide.start(root, scenario, expected, "none", { label: RUNNING_LABEL })
        : await GateSide.start(root, scenario, expected, kind);
      if (side instanceof GateSide && kind === "running") {
        await side.ask({ action: "status" });
        await new Promise((resolve) => setTimeout(resolve, RUNNING_IDLE_MS));
        t0 = performance.now();
      }
      // The server's whole process tree (bubblewrap, go list, tsserver…), sampled while it loads.
      let peak = 0;
      const sampler = setInterval(() => {
        const mib = side instanceof DirectSide
          ? treeRssMiB(side.serverPid)
          : treeRssMiB(side.pid!, false);
        peak = Math.max(peak, mib);
      }, 50);
      try {
        await until(
          `${side.label} cold definition`,
          () => side.definitionCorrect(),
          Boolean,
          kind === "direct" ? 10 : 0,
        );
        const definition = performance.now() - t0;
        await until(
          `${side.label} cold references`,
          () => side.referenceCount(),
          (n) => n >= expected.references,
          kind === "direct" ? 10 : 0,
        );
        const references = performance.now() - t0;
        const entry = result.cold[side.label] ??= { definition: [], references: [] };
        entry.definition.push(definition);
        entry.references.push(references);
        ((result.coldServerMiB ??= {})[side.label] ??= []).push(peak);
      } finally {
        clearInterval(sampler);
        await side.close().catch(() => {});
        await Deno.remove(root, { recursive: true }).catch(() => {});
      }
    }
  }
  for (const root of Object.values(roots)) {
    if (root) await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  return result;
}

/** The cold start of an lspgate already up when the first question comes (see the cold runs). */
export const RUNNING_LABEL = "lspgate, running";
/** How long that lspgate sits idle after answering `status`: an agent's first question comes later. */
const RUNNING_IDLE_MS = 1000;

/** Median cold start of a side, in ms. */
export function coldMedian(
  result: ScenarioResult,
  label: string,
  what: "definition" | "references",
) {
  return median(result.cold?.[label]?.[what] ?? []);
}
