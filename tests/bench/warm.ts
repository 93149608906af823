// `deno run -A tests/bench/warm.ts [--runs N]`: cold against warm. For TypeScript
// (typescript-language-server), Python (pyright) and C (clangd), on the fixtures: `lspgate call`
// with --no-daemon (every call starts its server) against `call` through the warm daemon, and the
// post-edit hook likewise; and the warm hook's time against the server's own diagnostics time
// (the same file's diagnostics asked on an open connection). Prints medians; asserts nothing.
import { parseArgs } from "node:util";
import { join } from "node:path";
import { spawnLines } from "../helpers/line_process.ts";

const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
const RUNS = Number(values.runs ?? 5);
const ROOT = join(import.meta.dirname!, "..", "..");
const MOD = join(ROOT, "mod.ts");

interface Case {
  name: string;
  fixture: string;
  file: string;
  /** A line whose edit the hook reports (an error appended). */
  broken: string;
}

const CASES: Case[] = [
  {
    name: "TypeScript",
    fixture: "typescript",
    file: "src/index.ts",
    broken: "const wrong: number = 'x';\n",
  },
  { name: "Python", fixture: "python", file: "main.py", broken: "wrong: int = 'x'\n" },
  { name: "C", fixture: "c", file: "src/main.c", broken: 'int wrong = "x";\n' },
];

async function copyFixture(name: string): Promise<string> {
  const target = await Deno.realPath(await Deno.makeTempDir({ prefix: `lspgate_warm_${name}_` }));
  const copy = async (from: string, to: string) => {
    await Deno.mkdir(to, { recursive: true });
    for await (const entry of Deno.readDir(from)) {
      if (entry.isDirectory) await copy(join(from, entry.name), join(to, entry.name));
      else if (entry.isFile) await Deno.copyFile(join(from, entry.name), join(to, entry.name));
    }
  };
  await copy(join(ROOT, "tests", "fixtures", name), target);
  return target;
}

async function timed(args: string[], env: Record<string, string>, stdin?: string) {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MOD, ...args],
    env,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const status = await child.status;
  return { ms: performance.now() - started, code: status.code };
}

/** Durations of `runs` diagnostics requests for `file`, one after another, on one JSON-lines process. */
async function sequential(
  args: string[],
  env: Record<string, string>,
  file: string,
  runs: number,
): Promise<number[]> {
  const process = spawnLines(Deno.execPath(), ["run", "-A", MOD, ...args], { env });
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const started = performance.now();
    await process.send({ id: i, action: "diagnostics", file });
    await process.next();
    if (i > 0) times.push(performance.now() - started);
  }
  await process.close();
  await process.child.status;
  return times;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

const fmt = (ms: number) => `${Math.round(ms)} ms`;

for (const c of CASES) {
  const root = await copyFixture(c.fixture);
  const runtime = await Deno.makeTempDir({ prefix: "lspgate_warm_rt_" });
  await Deno.chmod(runtime, 0o700);
  const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0" };
  try {
    try {
      await Deno.stat(join(root, c.file));
    } catch {
      console.log(`${c.name}: fixture has no ${c.file}; skipped`);
      continue;
    }
    const call = ["call", "diagnostics", `file=${c.file}`, "--root", root];
    const hook = ["hook", c.file, "--root", root, "--config", join(runtime, "hook.json")];
    // A long hook deadline, so cold and warm hooks both wait for the answer being timed.
    await Deno.writeTextFile(
      join(runtime, "hook.json"),
      JSON.stringify({ hookDeadlineMs: 60_000 }),
    );
    const cold: number[] = [];
    const warm: number[] = [];
    const coldHook: number[] = [];
    const warmHook: number[] = [];
    await timed([...call], env); // starts the daemon and warms it
    for (let i = 0; i < RUNS; i++) {
      cold.push((await timed([...call, "--no-daemon"], env)).ms);
      warm.push((await timed(call, env)).ms);
    }
    const original = await Deno.readTextFile(join(root, c.file));
    await Deno.writeTextFile(join(root, c.file), original + c.broken);
    await timed(hook, env); // the hook's daemon (its config differs) warms
    for (let i = 0; i < RUNS; i++) {
      coldHook.push((await timed([...hook, "--no-daemon"], env)).ms);
      warmHook.push((await timed(hook, env)).ms);
    }
    // The server's own diagnostics time for the edited file, warm, with no process to start: asked
    // one at a time on an open connection to the same daemon.
    const own = await sequential(["--root", root, "--daemon"], env, c.file, RUNS);
    await Deno.writeTextFile(join(root, c.file), original);
    console.log(
      `${c.name}: call cold ${fmt(median(cold))} / warm ${fmt(median(warm))}; ` +
        `hook cold ${fmt(median(coldHook))} / warm ${fmt(median(warmHook))}; ` +
        `diagnostics on an open connection ${fmt(median(own))} ` +
        `(warm hook − that = ${fmt(median(warmHook) - median(own))}, process start included)`,
    );
  } finally {
    for (const config of [[], ["--config", join(runtime, "hook.json")]]) {
      await timed(["daemon", "stop", "--root", root, ...config], env);
    }
    await Deno.remove(root, { recursive: true });
    await Deno.remove(runtime, { recursive: true });
  }
}
