// `deno task bench`: speed and memory, measured (never asserted in timed tests: CI is noisy).
// - cold start: first definition answer on a fresh `deno lsp`;
// - warm latency: definition / hover / references, median and p95 over repeated calls;
// - load: 200 concurrent requests through one JSON-lines session, all answered and correct;
// - soak: 10,000 requests with lspgate's RSS sampled every 1,000, and the trend reported.
// Usage: deno task bench [--soak N]
import { fileURLToPath as fromFileUrl } from "node:url";
import { parseArgs } from "node:util";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { serveJsonLines } from "../../src/frontends/json_lines.ts";

const { values } = parseArgs({ args: Deno.args, options: { soak: { type: "string" } } });
const soakCount = Number(values.soak ?? 10_000);
const fixture = fromFileUrl(new URL("../fixtures/deno/", import.meta.url));

async function copyFixture(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "lspgate-bench-" });
  const copy = new Deno.Command("cp", { args: ["-r", `${fixture}.`, dir] });
  if (!(await copy.output()).success) throw new Error("cp failed");
  return dir;
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5).toFixed(1), p95: at(0.95).toFixed(1), max: at(1).toFixed(1) };
}

function rssMiB(): number {
  return Deno.memoryUsage().rss / 1024 / 1024;
}

const root = await copyFixture();
const open = () =>
  Session.open({
    root,
    role: "subagent",
    allowMutations: false,
    adapters: ADAPTERS,
    config: defaultConfig(),
  });
const probe = { action: "definition", file: "src/main.ts", line: 7, symbol: "greet" } as const;

try {
  // Cold start.
  let session = await open();
  let t0 = performance.now();
  const cold = await session.handle({ id: 0, ...probe });
  console.log(
    `cold start: first definition in ${(performance.now() - t0).toFixed(0)} ms (ok=${cold.ok})`,
  );

  // Warm latency per action.
  for (
    const request of [
      probe,
      { action: "hover", file: "src/main.ts", line: 7, symbol: "greet" },
      { action: "references", file: "src/greet.ts", query: "greet" },
      { action: "symbols", file: "src/main.ts" },
    ]
  ) {
    const samples: number[] = [];
    for (let i = 0; i < 50; i++) {
      t0 = performance.now();
      const response = await session.handle({ id: i, ...request });
      if (!response.ok) throw new Error(`${request.action} failed: ${JSON.stringify(response)}`);
      samples.push(performance.now() - t0);
    }
    console.log(`warm ${request.action}: ${JSON.stringify(stats(samples))} ms over 50`);
  }
  await session.close();

  // Load: 200 concurrent requests through the JSON-lines front end.
  session = await open();
  const lines = Array.from({ length: 200 }, (_, i) => JSON.stringify({ id: i, ...probe }) + "\n");
  const answers: Record<string, unknown>[] = [];
  let buffer = "";
  t0 = performance.now();
  await serveJsonLines(
    session,
    ReadableStream.from(lines.map((l) => new TextEncoder().encode(l))),
    new WritableStream({
      write(chunk) {
        buffer += new TextDecoder().decode(chunk);
        const parts = buffer.split("\n");
        buffer = parts.pop()!;
        for (const part of parts) answers.push(JSON.parse(part));
      },
    }),
  );
  const ids = new Set(answers.map((a) => a.id));
  const first = JSON.stringify((answers[0] as { details?: unknown }).details);
  const same = answers.every((a) => JSON.stringify((a as { details?: unknown }).details) === first);
  console.log(
    `load: 200 concurrent definitions in ${(performance.now() - t0).toFixed(0)} ms; ` +
      `${ids.size} distinct ids answered, all ok=${answers.every((a) => a.ok)}, identical=${same}`,
  );

  // Soak: sequential requests, RSS sampled; report the slope of the second half.
  session = await open();
  const samples: { n: number; rss: number }[] = [];
  const actions = [
    probe,
    { action: "hover", file: "src/main.ts", line: 7, symbol: "greet" },
    { action: "diagnostics", file: "src/main.ts" },
    { action: "definition", file: "../outside.ts", line: 1, column: 1 },
  ];
  t0 = performance.now();
  for (let i = 1; i <= soakCount; i++) {
    await session.handle({ id: i, ...actions[i % actions.length] });
    if (i % 1000 === 0) samples.push({ n: i, rss: rssMiB() });
  }
  await session.close();
  const half = samples.slice(Math.floor(samples.length / 2));
  const slope = half.length > 1
    ? (half[half.length - 1].rss - half[0].rss) / (half[half.length - 1].n - half[0].n) * 1000
    : 0;
  console.log(
    `soak: ${soakCount} requests in ${((performance.now() - t0) / 1000).toFixed(1)} s; RSS MiB ` +
      samples.map((s) => s.rss.toFixed(0)).join(" → ") +
      `; second-half trend ${slope.toFixed(2)} MiB per 1,000 requests`,
  );
} finally {
  await Deno.remove(root, { recursive: true });
}
