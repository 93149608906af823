// What every start pays for, and the first answers. `deno bundle` makes one file and hoists every
// static `node:` import in it to the file's start, a module that only MCP loads included (and any
// `node:` module loads Deno's Node compatibility layer: paths and file URLs are lspgate's own); and
// zod's full API (454 KB bundled, ~+50 ms at each start, +13 MiB) is kept whole wherever it is
// imported, where `zod/mini` keeps only the functions used; the first `localeCompare` loads ICU's
// collation data (9–17 ms), which a clangd start and a first references answer paid. Timings are
// the benchmark's (`tests/bench/cold.ts --compare dist/lspgate.js`); this keeps what gives them.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "../helpers/program.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const entry = fileURLToPath(new URL("../../src/worker_entry.ts", import.meta.url));
const home = new URL("../../", import.meta.url).href;

interface Dependency {
  specifier: string;
  code?: { specifier: string };
  isDynamic?: boolean;
}

/** Each of lspgate's own modules in the bundle's graph, with the modules it imports as code. */
async function ownImports(): Promise<Map<string, Dependency[]>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string; dependencies?: Dependency[] }[];
  };
  const own = new Map<string, Dependency[]>();
  for (const module of info.modules) {
    if (!module.specifier.startsWith(home)) continue;
    own.set(module.specifier.slice(home.length), module.dependencies ?? []);
  }
  return own;
}

Deno.test("the bundle's start loads no node: module: the few lspgate uses are imported where used", async () => {
  const own = await ownImports();
  assert.ok(own.has("src/frontends/mcp.ts"), "the graph reaches the MCP front end");
  const hoisted: string[] = [];
  for (const [module, dependencies] of own) {
    for (const dependency of dependencies) {
      const code = dependency.code?.specifier;
      if (!code?.startsWith("node:") || dependency.isDynamic) continue;
      hoisted.push(`${module} imports ${code}`);
    }
  }
  assert.deepEqual(hoisted, []);
});

Deno.test("zod's full API is loaded only by the MCP front end; every other schema is zod/mini's", async () => {
  const own = await ownImports();
  const full: string[] = [];
  for (const [module, dependencies] of own) {
    for (const dependency of dependencies) {
      const code = dependency.code?.specifier ?? "";
      if (/^npm:\/?zod@[^/]+$/.test(code)) full.push(module);
    }
  }
  assert.deepEqual(full, ["src/frontends/mcp.ts"]);
  const mini = [...own].filter(([, dependencies]) =>
    dependencies.some((d) => /^npm:\/?zod@[^/]+\/mini$/.test(d.code?.specifier ?? ""))
  ).map(([module]) => module);
  assert.deepEqual(mini, ["src/zod.ts"]);
});

Deno.test("a session's opening loads no zod: its schemas load with the first action, after the first question's server is spawned", async () => {
  const own = await ownImports();
  // What a session statically imports, as the bundle evaluates it when the session opens.
  const reached = new Set<string>();
  const pending = ["src/session.ts"];
  while (pending.length) {
    const module = pending.pop()!;
    if (reached.has(module)) continue;
    reached.add(module);
    for (const dependency of own.get(module) ?? []) {
      const code = dependency.code?.specifier;
      if (code?.startsWith(home) && !dependency.isDynamic) pending.push(code.slice(home.length));
    }
  }
  assert.ok(reached.has("src/actions/apply_journal.ts"), "the graph reaches the apply journal");
  assert.equal(
    reached.has("src/zod.ts"),
    false,
    "src/zod.ts is imported statically by the session",
  );
});

Deno.test("no module of lspgate's orders text with localeCompare, whose first call loads ICU's collation data", async () => {
  const own = await ownImports();
  const calling: string[] = [];
  for (const module of own.keys()) {
    if (!/\.(ts|js)$/.test(module)) continue;
    const text = await Deno.readTextFile(fileURLToPath(new URL(module, home)));
    if (/\.localeCompare\(/.test(text)) calling.push(module);
  }
  assert.ok(own.has("adapters/clangd.ts"), "the graph reaches the adapters");
  assert.deepEqual(calling, []);
});

// Deno's timer functions are Node's, loaded at the first use of any (6–9 ms in an isolate), and
// its web streams load at the first use of theirs (~4 ms) or of Deno.Command: lspgate uses none of
// them before the first question's server is spawned (whose Deno.Command loads the streams), so
// the timers load while the server starts, and a client of the warm daemon loads neither. Seen
// from a preload that wraps those globals and Deno.Command in the program the start task runs.
const TIMER_WATCH = `
const firstUses = [];
const before = [];
const whileAsked = [];
let spawned = false;
let answered = false;
const Command = Deno.Command;
Deno.Command = class extends Command {
  constructor(command, options) {
    super(command, options);
    // The server, or bubblewrap around it.
    if ([command, ...(options?.args ?? [])].some((arg) => String(arg).endsWith("/clangd"))) {
      spawned = true;
    } else if (!spawned) before.push(String(command));
    else if (!answered) whileAsked.push(String(command));
  }
};
const write = Deno.stdout.write.bind(Deno.stdout);
Deno.stdout.write = (bytes) => {
  answered = true;
  return write(bytes);
};
const streams = [];
function watch(names, uses) {
  for (const name of names) {
    const own = Object.getOwnPropertyDescriptor(globalThis, name);
    Object.defineProperty(globalThis, name, {
      configurable: true,
      get() {
        if (uses.length < 3) uses.push({ name, spawned, at: new Error().stack.split("\\n")[2]?.trim() });
        return own.get ? own.get.call(this) : own.value;
      },
    });
  }
}
watch(["setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate"], firstUses);
// Deno's web streams load at the first use of any of these globals (~4 ms), or of Deno.Command.
watch(["ReadableStream", "WritableStream", "TransformStream", "TextDecoderStream"], streams);
globalThis.addEventListener("unload", () => {
  console.error("TIMERS " + JSON.stringify(firstUses));
  console.error("BEFORE " + JSON.stringify(before));
  console.error("WHILE_ASKED " + JSON.stringify(whileAsked));
  console.error("STREAMS " + JSON.stringify(streams));
});
`;

/** What a run of the start task's program (its grant, never -A) with TIMER_WATCH preloaded gave. */
interface WatchedRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The first uses of a timer function, whether the server had been spawned by then. */
  timers: { spawned: boolean; at: string }[];
  /** The programs started before the server. */
  commands: string[];
  /** The programs started after the server, before the first answer was written. */
  whileAsked: string[];
  /** The first uses of a web streams global, whether the server had been spawned by then. */
  streams: { spawned: boolean; at: string }[];
}

/** deno.json's start task as `deno task start` runs it, with the preload and `args` added. */
async function watchedRun(
  args: string,
  env: Record<string, string>,
  input: string,
): Promise<WatchedRun> {
  const preload = await Deno.makeTempFile({ prefix: "lspgate_timer_watch_", suffix: ".js" });
  try {
    await Deno.writeTextFile(preload, TIMER_WATCH);
    const tasks = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}deno.json`)).tasks;
    const start = (tasks.start as string).replace(/^deno run /, "");
    const run = new Deno.Command("sh", {
      args: ["-c", `"$DENO" run --preload "$PRELOAD" ${start} ${args}`],
      cwd: REPO_ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { DENO: Deno.execPath(), PRELOAD: preload, ...env },
    }).spawn();
    const writer = run.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    await writer.close();
    const out = await run.output();
    const stderr = new TextDecoder().decode(out.stderr);
    return {
      code: out.code,
      stdout: new TextDecoder().decode(out.stdout),
      stderr,
      timers: JSON.parse(/^TIMERS (.*)$/m.exec(stderr)?.[1] ?? "null"),
      commands: JSON.parse(/^BEFORE (.*)$/m.exec(stderr)?.[1] ?? "null"),
      whileAsked: JSON.parse(/^WHILE_ASKED (.*)$/m.exec(stderr)?.[1] ?? "null"),
      streams: JSON.parse(/^STREAMS (.*)$/m.exec(stderr)?.[1] ?? "null"),
    };
  } finally {
    await Deno.remove(preload);
  }
}

/** A private runtime folder, as lspgate wants its own. */
async function runtimeFolder(): Promise<string> {
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_timer_rt_" }));
  await Deno.chmod(runtime, 0o700);
  return runtime;
}

Deno.test("the first question's server is spawned before lspgate's first timer, whose first use loads Node's", async () => {
  await using ws = await TempWorkspace.copy("c");
  const runtime = await runtimeFolder();
  try {
    const at = await ws.locate("src/main.c", "add_counts(1");
    const request = JSON.stringify({ id: 1, action: "definition", file: "src/main.c", ...at });
    // `auto` probes bubblewrap (or Landlock) first, while the session's modules load.
    for (const sandbox of ["none", "auto"]) {
      const run = await watchedRun(
        `--root "$ROOT" --sandbox ${sandbox}`,
        { ROOT: ws.root, XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "1" },
        request + "\n",
      );
      const answer = JSON.parse(run.stdout.trim());
      assert.deepEqual(
        answer.details?.locations?.map((l: { file: string }) => l.file),
        ["src/counts.c"],
        run.stdout + run.stderr,
      );
      assert.ok(run.timers?.length, run.stderr);
      const early = run.timers.filter((use) => !use.spawned);
      assert.deepEqual(early, [], `${sandbox}: ${JSON.stringify(run.timers)}`);
      // Nor any other program first: the machine's memory (the budget's default, read by `cat`
      // under the start task's grant) is read when the budget is first needed.
      if (sandbox === "none") assert.deepEqual(run.commands, []);
      // Nor between the server's spawn and the answer: the budget's check of a start (a `cat` of
      // the machine's memory, a `sh` and `cat` of /proc) runs once the question is answered.
      if (sandbox === "none") assert.deepEqual(run.whileAsked, []);
      // Nor web streams: stdin and stdout are read and written by their methods. (The first
      // Deno.Command loads them too: with `auto`, bubblewrap's probe, before the server.)
      if (sandbox === "none") {
        assert.deepEqual(run.streams?.filter((use) => !use.spawned), [], run.stderr);
      }
    }
  } finally {
    await Deno.remove(runtime, { recursive: true });
  }
});

Deno.test("a post-edit hook answered by the warm daemon uses no timer function at all, nor web streams", async () => {
  await using ws = await TempWorkspace.copy("c");
  const runtime = await runtimeFolder();
  // The daemon on, whatever the test run's environment says (tests/run.ts turns it off).
  const env = { ROOT: ws.root, XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0" };
  try {
    const started = await watchedRun(`daemon start --root "$ROOT"`, env, "");
    assert.equal(started.code, 0, started.stderr);
    await ws.write(
      "src/main.c",
      (await ws.read("src/main.c")).replace("return total", "return totl"),
    );
    // As Claude Code runs it after an Edit: the payload on stdin, the edit's strings in it.
    const payload = {
      hook_event_name: "PostToolUse",
      tool_name: "Edit",
      tool_input: {
        file_path: `${ws.root}/src/main.c`,
        old_string: "return total",
        new_string: "return totl",
      },
      cwd: ws.root,
    };
    for (let round = 0; round < 2; round++) {
      const hook = await watchedRun(`hook --root "$ROOT"`, env, JSON.stringify(payload));
      assert.equal(hook.code, 2, hook.stderr);
      assert.match(hook.stderr, /src\/main\.c:\d+:\d+ error/);
      assert.deepEqual(hook.timers, [], hook.stderr);
      assert.deepEqual(hook.streams, [], hook.stderr);
    }
  } finally {
    await watchedRun(`daemon stop --root "$ROOT"`, env, "");
    await Deno.remove(runtime, { recursive: true });
  }
});
