// How much of a query's time is lspgate's own work: the main thread's CPU time per query (Linux:
// /proc/self/task/PID/schedstat) beside its latency, for the direct client, for lspgate as a
// library (`mod.ts`, in the asking process, as paths.ts runs it) and over JSON lines (lspgate's
// process under the start task's flags: its CPU is every thread's of that process, the asker's
// main thread's beside it), each side in a process of its own on its own copy of the workspace,
// sides alternating. Queries are asked back to back (gap 0)
// and apart (gap 20 ms, the CPU idle between them, so lspgate's code runs from cold caches as in
// the benchmark's interleaved rounds). The timers' own CPU (a loop of the same waits without
// queries) is taken off. Prints medians over the runs, and lspgate's process's CPU by kind of
// thread (main, Deno's blocking pool, its watcher thread, V8's workers); asserts nothing.
//
// Usage: deno run -A tests/bench/cpu_per_query.ts [--only clangd/fixture] [--query hover]
//   [--queries 300] [--runs 3] [--gaps 0,20] [--sides direct,library,jsonl]
import { parseArgs } from "node:util";
import { copyWorkspace, openLibrarySession } from "./measure.ts";
import { DirectSide, type Expected, locate } from "./sides.ts";
import { SCENARIOS } from "./scenarios.ts";
import { INOTIFY_ARG } from "../../src/servers/inotify_watch.ts";
import { type GateResponse, LspgateProcess } from "./lspgate_process.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    only: { type: "string", default: "clangd/fixture" },
    query: { type: "string", default: "definition" },
    queries: { type: "string", default: "300" },
    runs: { type: "string", default: "3" },
    gaps: { type: "string", default: "0,20" },
    sides: { type: "string", default: "direct,library,jsonl" },
    // A child: one side, one gap; prints one JSON line.
    side: { type: "string" },
    gap: { type: "string" },
  },
});
const scenario = SCENARIOS.find((s) => s.name.includes(values.only!));
if (!scenario) throw new Error(`no scenario ${values.only}`);
const query = values.query as "definition" | "hover";
if (query !== "definition" && query !== "hover") throw new Error("--query definition or hover");
const QUERIES = Number(values.queries);

interface Measured {
  latencyMs: number;
  /** The asking process's main thread. */
  cpuMs: number;
  /** Every thread of lspgate's own process (JSON lines). */
  gateCpuMs?: number;
  /** The same by kind of thread (main, blocking pool, Deno's watcher, V8's workers, other). */
  gateThreadsMs?: Record<string, number>;
  /** lspgate's watcher process, where one runs (the library's; a JSON-lines process's for a tree with links). */
  watcherCpuMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The calling thread's CPU time in ns (the main thread: this process's pid is its id). */
function mainThreadCpu(): () => number {
  const file = Deno.openSync(`/proc/self/task/${Deno.pid}/schedstat`);
  const buffer = new Uint8Array(128);
  const decoder = new TextDecoder();
  return () => {
    const n = file.readSync(buffer) ?? 0;
    file.seekSync(0, Deno.SeekMode.Start);
    return Number(decoder.decode(buffer.subarray(0, n)).split(" ")[0]);
  };
}

/** Which of a Deno process's threads, by its name (`/proc/…/comm`, its number taken off). */
const THREAD_KINDS: Record<string, string> = {
  "tokio-runtime-w": "blocking pool",
  "notify-rs inoti": "Deno's watcher",
  "V8 DefaultWorke": "V8's workers",
};

/** Each kind of thread's CPU time in ns of process `pid`, so far (the main thread as "main"). */
function threadsCpu(pid: number): Map<string, number> {
  const kinds = new Map<string, number>();
  for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      const dir = `/proc/${pid}/task/${task.name}`;
      const name = Deno.readTextFileSync(`${dir}/comm`).trim().replace(/\d+$/, "");
      const kind = task.name === String(pid) ? "main" : THREAD_KINDS[name] ?? "other";
      const ns = Number(Deno.readTextFileSync(`${dir}/schedstat`).split(" ")[0]);
      kinds.set(kind, (kinds.get(kind) ?? 0) + ns);
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return kinds;
}

/** Each kind's time from `start` to `now`, less `idle`'s (kinds that ran at all). */
function since(
  now: Map<string, number>,
  start: Map<string, number>,
  idle = new Map<string, number>(),
): Map<string, number> {
  return new Map(
    [...now].map(([kind, ns]) => [kind, ns - (start.get(kind) ?? 0) - (idle.get(kind) ?? 0)]),
  );
}

/** Every thread's CPU time in ns of process `pid`, so far. */
function processCpu(pid: number): number {
  return [...threadsCpu(pid).values()].reduce((sum, ns) => sum + ns, 0);
}

/** The watcher processes among `pid`'s children (lspgate's inotify watcher). */
function watcherProcesses(pid: number): number[] {
  const found: number[] = [];
  for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
    let children: string;
    try {
      children = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/children`);
    } catch {
      continue;
    }
    for (const child of children.split(" ").filter(Boolean).map(Number)) {
      try {
        // From source it runs its own module; from the bundle, the bundle with INOTIFY_ARG.
        const command = Deno.readTextFileSync(`/proc/${child}/cmdline`);
        if (command.includes(INOTIFY_ARG) || command.includes("/inotify_watch.ts\0")) {
          found.push(child);
        }
      } catch {
        // Ended meanwhile.
      }
    }
  }
  return found;
}

/** One side's askers: `ask` answers one query (checked), `close` ends it. */
async function sideOf(side: string, root: string) {
  const spot = scenario![query];
  const place = await locate(root, spot);
  const request = () => ({ action: query, file: place.file, line: place.line + 1 });
  if (side === "jsonl") {
    const gate = new LspgateProcess(root, "none");
    return {
      pid: gate.pid,
      async ask() {
        const response = await gate.request({ ...request(), column: place.column });
        if (!response.ok) throw new Error(`${query}: ${JSON.stringify(response.error)}`);
      },
      close: () => gate.close(),
    };
  }
  if (side === "direct") {
    const target = await locate(root, { ...scenario!.definition.expect, symbol: "" });
    const expected: Expected = {
      definition: { file: scenario!.definition.expect.file, line: target.line },
      references: 1,
    };
    const direct = await DirectSide.start(root, scenario!, expected);
    await direct.prepare(query, 0);
    return { pid: undefined, ask: () => direct.run(query), close: () => direct.close() };
  }
  const session = await openLibrarySession(root);
  let id = 0;
  return {
    pid: undefined,
    async ask() {
      const response = await session.handle({
        id: ++id,
        ...request(),
        column: place.column,
      }) as GateResponse;
      if (!response.ok) throw new Error(`${query}: ${JSON.stringify(response.error)}`);
    },
    close: () => session.close(),
  };
}

async function child(side: string, gap: number): Promise<Measured> {
  const root = await copyWorkspace((await scenario!.folder())!, scenario!);
  const { ask, close, pid } = await sideOf(side, root);
  try {
    // Warm: the server's project loaded, the file open, lspgate's code run a few times.
    for (let attempt = 0;; attempt++) {
      try {
        await ask();
        break;
      } catch (error) {
        if (attempt > 60) throw error;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    for (let i = 0; i < 20; i++) await ask();
    const cpu = mainThreadCpu();
    const wait = () => gap ? new Promise((r) => setTimeout(r, gap)) : Promise.resolve();
    const gateCpu = () => pid === undefined ? new Map<string, number>() : threadsCpu(pid);
    const watchers = watcherProcesses(pid ?? Deno.pid);
    const watcherCpu = () => watchers.reduce((sum, watcher) => sum + processCpu(watcher), 0);
    const idleStart = cpu(), gateIdleStart = gateCpu(), watcherIdleStart = watcherCpu();
    for (let i = 0; i < QUERIES; i++) await wait();
    const timersNs = cpu() - idleStart, gateIdleNs = since(gateCpu(), gateIdleStart);
    const watcherIdleNs = watcherCpu() - watcherIdleStart;
    const latencies: number[] = [];
    const start = cpu(), gateStart = gateCpu(), watcherStart = watcherCpu();
    for (let i = 0; i < QUERIES; i++) {
      await wait();
      const t0 = performance.now();
      await ask();
      latencies.push(performance.now() - t0);
    }
    const cpuNs = cpu() - start - timersNs;
    const gateNs = since(gateCpu(), gateStart, gateIdleNs);
    const gateThreadsMs = Object.fromEntries(
      [...gateNs].map(([kind, ns]) => [kind, ns / QUERIES / 1e6]),
    );
    const watcherNs = watcherCpu() - watcherStart - watcherIdleNs;
    return {
      latencyMs: median(latencies),
      cpuMs: cpuNs / QUERIES / 1e6,
      watcherCpuMs: watcherNs / QUERIES / 1e6,
      ...pid === undefined ? {} : {
        gateCpuMs: [...gateNs.values()].reduce((sum, ns) => sum + ns, 0) / QUERIES / 1e6,
        gateThreadsMs,
      },
    };
  } finally {
    await close();
    await Deno.remove(root, { recursive: true });
  }
}

if (values.side) {
  console.log(JSON.stringify(await child(values.side, Number(values.gap ?? 0))));
  Deno.exit(0);
}

const gaps = values.gaps!.split(",").map(Number);
const sides = values.sides!.split(",");
const results = new Map<string, Measured[]>();
for (let run = 0; run < Number(values.runs); run++) {
  for (const gap of gaps) {
    for (const side of run % 2 ? [...sides].reverse() : sides) {
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          import.meta.filename!,
          `--only=${values.only}`,
          `--query=${query}`,
          `--queries=${QUERIES}`,
          `--side=${side}`,
          `--gap=${gap}`,
        ],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      if (!output.success) throw new Error(`${side}, gap ${gap}: failed`);
      const line = new TextDecoder().decode(output.stdout).trim().split("\n").at(-1)!;
      const key = `${side}\t${gap}`;
      results.set(key, [...results.get(key) ?? [], JSON.parse(line)]);
    }
  }
}
console.log(
  `${scenario.name}, ${query}: ${QUERIES} queries a run, medians of ${values.runs} runs (ms)\n`,
);
console.log(
  "| side | gap | latency | the asker's main thread's CPU | lspgate's process's CPU | " +
    "its watcher process's CPU |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const gap of gaps) {
  for (const side of sides) {
    const measured = results.get(`${side}\t${gap}`) ?? [];
    const latency = median(measured.map((m) => m.latencyMs)).toFixed(2);
    const cpu = median(measured.map((m) => m.cpuMs)).toFixed(2);
    const gate = side === "jsonl" ? median(measured.map((m) => m.gateCpuMs ?? NaN)).toFixed(2) : "";
    const watcher = side === "direct" ? "" : median(measured.map((m) => m.watcherCpuMs)).toFixed(2);
    console.log(`| ${side} | ${gap} ms | ${latency} | ${cpu} | ${gate} | ${watcher} |`);
  }
}
// lspgate's own process (JSON lines) by kind of thread: where its CPU per query goes.
const kinds = ["main", ...Object.values(THREAD_KINDS), "other"];
if (sides.includes("jsonl")) {
  console.log(`\nlspgate's process's CPU a query by thread (JSON lines; ms)\n`);
  console.log(`| gap | ${kinds.join(" | ")} |`);
  console.log(`| --- | ${kinds.map(() => "---").join(" | ")} |`);
  for (const gap of gaps) {
    const measured = results.get(`jsonl\t${gap}`) ?? [];
    const cells = kinds.map((kind) =>
      median(measured.map((m) => m.gateThreadsMs?.[kind] ?? 0)).toFixed(2)
    );
    console.log(`| ${gap} ms | ${cells.join(" | ")} |`);
  }
}
