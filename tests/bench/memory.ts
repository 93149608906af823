// lspgate's resident memory, quickly: starts lspgate's JSON-lines front end as an agent runs it
// (`deno run --allow-read --allow-env --allow-run mod.ts --root DIR --sandbox none`) on a copy of
// the TypeScript fixture (or `--root DIR`), waits for the first correct definition, and prints
// VmRSS of lspgate's own process (every thread, so every Worker; not the language server's) at
// rest, after N cheap requests (definition, hover, symbols, references; 8 in flight) and at rest
// again. `deno task bench` measures the same thing among much else; this takes seconds.
//
//   deno run -A tests/bench/memory.ts [-n 1000] [--query] [--root DIR] [--entry dist/lspgate.js]
//     [--v8-flags=FLAGS (default: src/v8_flags.ts; empty for none)] [--rounds 3] [--rest SECONDS]
//     [--json] [--env NAME=VALUE …]
//   deno run -A tests/bench/memory.ts --worker-start [--rounds 20] [--entry dist/lspgate.js]
//
// `--worker-start` times a client Worker from `new Worker` to its answer (a start that fails at
// once: the server binary does not exist), which is the module loading a server's start pays.
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { V8_FLAGS } from "../../src/v8_flags.ts";
import { endProcess, rssMiB } from "./lspgate_process.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", short: "n", default: "1000" },
    root: { type: "string" },
    entry: { type: "string", default: "mod.ts" },
    // As lspgate is started (`deno task start`, `permissions`); `--v8-flags=` for none.
    "v8-flags": { type: "string", default: V8_FLAGS.join(",") },
    rounds: { type: "string", default: "1" },
    "worker-start": { type: "boolean" },
    rest: { type: "string", default: "2" },
    json: { type: "boolean" },
    // Positions by `query` (a symbol's name): each is resolved through the syntax tree first.
    query: { type: "boolean" },
    // lspgate's environment besides this one's (`--env MALLOC_ARENA_MAX=2`: glibc's malloc arenas).
    env: { type: "string", multiple: true },
  },
});

const extraEnv = Object.fromEntries(
  (args.values.env ?? []).map((
    pair,
  ) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
);

const home = fileURLToPath(new URL("../../", import.meta.url));

/** One process's memory, as /proc says it: the total, and its anonymous and file-backed parts. */
interface Sample {
  rss: number;
  anon: number;
  file: number;
  threads: number;
  /** Thread names and how many of each (`tokio-runtime-w ×4`): which threads hold memory. */
  names: string;
}

function sample(pid: number): Sample {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return {
    rss: rssMiB(pid),
    anon: kb("RssAnon") / 1024,
    file: (kb("RssFile") + kb("RssShmem")) / 1024,
    threads: kb("Threads"),
    names: threadNames(pid),
  };
}

function threadNames(pid: number): string {
  const counts = new Map<string, number>();
  for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      const name = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/comm`).trim();
      counts.set(name, (counts.get(name) ?? 0) + 1);
    } catch {
      // The thread ended while we looked.
    }
  }
  return [...counts].map(([name, n]) => n > 1 ? `${name} ×${n}` : name).join(", ");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function copyFixture(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "lspgate-memory-" });
  const from = `${home}tests/fixtures/typescript`;
  const command = new Deno.Command("cp", { args: ["-r", `${from}/.`, dir] });
  if (!(await command.output()).success) throw new Error(`could not copy ${from}`);
  return dir;
}

/** A position in the fixture found by text, 1-based. */
async function positionOf(root: string, file: string, text: string) {
  const lines = (await Deno.readTextFile(`${root}/${file}`)).split("\n");
  const line = lines.findIndex((l) => l.includes(text));
  return {
    file,
    line: line + 1,
    column: [...lines[line].slice(0, lines[line].indexOf(text))].length + 1,
  };
}

/** lspgate's JSON-lines process, started with the flags an agent uses (and any V8 flags given). */
class Gate {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, (response: Response) => void>();
  readonly #stderr: string[] = [];
  /** Lines on stdout that are not lspgate's (V8's tracing). */
  readonly other: string[] = [];
  readonly #done: Promise<unknown>;
  #nextId = 1;

  constructor(root: string, entry: string, v8Flags?: string) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-env",
        "--allow-run",
        ...(v8Flags ? [`--v8-flags=${v8Flags}`] : []),
        // A bundle runs as shipped: no deno.json, so its Workers' permissions need the flag.
        ...(entry.endsWith(".ts")
          ? ["--config", `${home}deno.json`]
          : ["--no-config", "--unstable-worker-options"]),
        entry.startsWith("/") ? entry : `${home}${entry}`,
        "--root",
        root,
        "--sandbox",
        "none",
      ],
      env: extraEnv,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#done = Promise.all([this.#read(), this.#drainStderr()]);
  }

  get pid(): number {
    return this.#child.pid;
  }

  request(request: Record<string, unknown>): Promise<Response> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.#writer.write(new TextEncoder().encode(JSON.stringify({ id, ...request }) + "\n"));
    });
  }

  stderrTail(): string {
    return this.#stderr.slice(-10).join("\n");
  }

  close(): Promise<void> {
    return endProcess(this.#writer, this.#child, this.#done);
  }

  async #read() {
    let buffer = "";
    for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        // V8's tracing (`--v8-flags=--trace-gc`) writes to stdout too: kept, printed at the end.
        if (!line.startsWith("{")) {
          this.other.push(line);
          continue;
        }
        const response = JSON.parse(line) as Response;
        this.#pending.get(response.id)?.(response);
        this.#pending.delete(response.id);
      }
    }
    // lspgate is gone: whatever is still asked will not be answered.
    for (const [id, resolve] of this.#pending) {
      resolve({ id, ok: false, error: { code: "EXITED", message: this.stderrTail() } });
    }
  }

  async #drainStderr() {
    for await (const chunk of this.#child.stderr.pipeThrough(new TextDecoderStream())) {
      this.#stderr.push(...chunk.split("\n").filter(Boolean));
      if (this.#stderr.length > 200) this.#stderr.splice(0, this.#stderr.length - 200);
    }
  }
}

interface Response {
  id: number;
  ok: boolean;
  error?: { code: string; message: string };
}

async function measureOnce(root: string, requests: number) {
  const gate = new Gate(root, args.values.entry, args.values["v8-flags"]);
  try {
    const at = await positionOf(root, "src/index.ts", "formatPrice(basket");
    const started = performance.now();
    const first = await gate.request({ action: "definition", ...at });
    if (!first.ok) {
      throw new Error(
        `first definition failed: ${JSON.stringify(first.error)}\n${gate.stderrTail()}`,
      );
    }
    const firstMs = performance.now() - started;
    const afterFirst = sample(gate.pid);
    await sleep(2000);
    const atRest = sample(gate.pid);
    // One at a time, to see what a V8 flag costs in latency (lspgate's own work is most of it).
    const latencies: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      await gate.request(i % 2 ? { action: "hover", ...at } : { action: "definition", ...at });
      latencies.push(performance.now() - t);
    }
    latencies.sort((a, b) => a - b);
    const latencyMs = latencies[150];
    // The slowest one in a hundred: where a collection on lspgate's main thread would show.
    const p99Ms = latencies[297];
    const mix = args.values.query
      ? [
        { action: "definition", file: "src/cart.ts", query: "summary" },
        { action: "hover", file: "src/models.ts", query: "Bundle" },
        { action: "symbols", file: "src/models.ts" },
        { action: "references", file: "src/format.ts", query: "formatPrice" },
      ]
      : [
        { action: "definition", ...at },
        { action: "hover", ...at },
        { action: "symbols", file: "src/models.ts" },
        { action: "references", ...at },
      ];
    let next = 0;
    let failed = 0;
    const loadStarted = performance.now();
    let peak = 0;
    const sampler = setInterval(() => peak = Math.max(peak, rssMiB(gate.pid)), 20);
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < requests) {
        const n = next++;
        const response = await gate.request(mix[n % mix.length]);
        if (!response.ok) failed++;
      }
    }));
    clearInterval(sampler);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const afterLoad = sample(gate.pid);
    await sleep(Number(args.values.rest) * 1000);
    const rested = sample(gate.pid);
    if (gate.other.length) console.log(gate.other.join("\n"));
    return {
      firstMs,
      latencyMs,
      p99Ms,
      afterFirst,
      atRest,
      peak,
      afterLoad,
      rested,
      failed,
      loadSeconds,
    };
  } finally {
    await gate.close();
  }
}

async function workerStart(rounds: number) {
  const { WORKER_NAMES, workerUrl } = await import("../../src/workers.ts");
  // A bundle is its own Workers' entry.
  const entry = args.values.entry;
  const url = entry === "mod.ts" ? workerUrl() : new URL(entry, `file://${Deno.cwd()}/`);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const worker = new Worker(url, {
      type: "module",
      name: `${WORKER_NAMES.client} memory-bench`,
      deno: { permissions: { read: false, run: ["/nonexistent/server"], env: false } },
    } as WorkerOptions);
    await new Promise<void>((resolve) => {
      worker.onmessage = () => resolve();
      worker.postMessage({
        type: "start",
        options: {
          serverName: "none",
          root: "/nonexistent",
          rootUri: "file:///nonexistent",
          process: { command: ["/nonexistent/server"], cwd: "/nonexistent" },
          installHint: "",
          requestTimeoutMs: 1000,
          startTimeoutMs: 1000,
        },
      });
    });
    times.push(performance.now() - started);
    worker.terminate();
  }
  times.sort((a, b) => a - b);
  console.log(
    `client Worker start (to a failed server start): median ${
      times[Math.floor(times.length / 2)].toFixed(1)
    } ms, min ${times[0].toFixed(1)} ms over ${rounds}`,
  );
}

const f = (n: number) => n.toFixed(1);
const show = (s: Sample) =>
  `${f(s.rss)} MiB (anon ${f(s.anon)}, file ${f(s.file)}; threads: ${s.names})`;

if (args.values["worker-start"]) {
  await workerStart(Number(args.values.rounds) || 20);
} else {
  const requests = Number(args.values.n);
  const rounds = Number(args.values.rounds) || 1;
  const results: Awaited<ReturnType<typeof measureOnce>>[] = [];
  for (let round = 0; round < rounds; round++) {
    const root = args.values.root ?? await copyFixture();
    try {
      const r = await measureOnce(root, requests);
      results.push(r);
      if (!args.values.json) {
        console.log(
          `first definition ${f(r.firstMs)} ms, then ${f(r.latencyMs)} ms a query (p99 ${
            f(r.p99Ms)
          }); RSS after it ${show(r.afterFirst)}\n` +
            `  at rest          ${show(r.atRest)}\n` +
            `  after ${requests} requests (${f(r.loadSeconds)} s, ${r.failed} failed, peak ${
              f(r.peak)
            }) ${show(r.afterLoad)}\n` +
            `  ${args.values.rest} s later   ${show(r.rested)}`,
        );
      }
    } finally {
      if (args.values.root === undefined) await Deno.remove(root, { recursive: true });
    }
  }
  if (args.values.json) console.log(JSON.stringify(results));
  else if (rounds > 1) {
    const median = (pick: (r: typeof results[number]) => number) => {
      const values = results.map(pick).sort((a, b) => a - b);
      return f(values[Math.floor(values.length / 2)]);
    };
    console.log(
      `median of ${rounds}: at rest ${median((r) => r.atRest.rss)} MiB, after ${requests} ` +
        `requests ${median((r) => r.afterLoad.rss)} MiB (peak ${median((r) => r.peak)}), ` +
        `${args.values.rest} s later ${median((r) => r.rested.rss)} MiB, ` +
        `first definition ${median((r) => r.firstMs)} ms, a query ${
          median((r) => r.latencyMs)
        } ms (p99 ${median((r) => r.p99Ms)}), ` +
        `${requests} requests in ${median((r) => r.loadSeconds)} s`,
    );
  }
}
