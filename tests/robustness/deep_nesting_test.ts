// A crafted file must not freeze lspgate (issue 18): deep nesting in each grammar (TypeScript,
// Java, JSON, C, Python), 60,000 deep and 1 MiB deep, parsed with no language server. While its
// parse runs, `status` answers within 500 ms; the request answers within its timeout + 1 s
// (TIMEOUT for the outline, saying how far it got); EOF exits promptly; the same through the
// daemon; `hook --no-daemon` keeps its deadline. lspgate runs with deno task start's permissions.
// The bounds are generous: these assert that lspgate stays responsive, not how fast it parses.
import assert from "node:assert/strict";
import { join } from "node:path";
import { V8_FLAGS_ARG } from "../../src/v8_flags.ts";
import { configFile, MOD } from "../helpers/daemon.ts";

const START = ["run", V8_FLAGS_ARG, "--allow-read", "--allow-env", "--allow-run", MOD];
const ALL = ["run", V8_FLAGS_ARG, "-A", MOD];
const TIMEOUT_MS = 2000;
const MiB = 1024 * 1024;

/** Each grammar's way to nest forever: a prefix, then `open` repeated. */
const NESTINGS: [string, string, string][] = [
  ["ts", "function f() ", "{"],
  ["java", "class A ", "{"],
  ["json", "", "["],
  ["c", "int f() ", "{"],
  ["py", "x = ", "["],
];

/** A workspace of the deep files: `deep60k.ts`, `deep1m.ts`, … */
async function deepWorkspace(): Promise<{ root: string; files: string[] }> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_deep_" }));
  const files: string[] = [];
  for (const [extension, prefix, open] of NESTINGS) {
    for (const [label, depth] of [["60k", 60_000], ["1m", MiB]] as const) {
      const file = `deep${label}.${extension}`;
      await Deno.writeTextFile(join(root, file), prefix + open.repeat(depth));
      files.push(file);
    }
  }
  return { root, files };
}

type Line = Record<string, unknown>;

/** An lspgate process spoken to in JSON lines, each answer stamped with when it came. */
class Lspgate {
  readonly child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #waiting = new Map<unknown, (line: Line) => void>();
  readonly #answers = new Map<unknown, Line>();
  readonly done: Promise<void>;
  readonly stderr: Promise<string>;

  /** Runs `deno <start> ARGS`: deno task start's command line unless `start` is given. */
  constructor(args: string[], env: Record<string, string> = {}, start = START) {
    const child = new Deno.Command(Deno.execPath(), {
      args: [...start, ...args],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1", ...env },
    }).spawn();
    this.child = child;
    this.#writer = child.stdin.getWriter();
    this.stderr = new Response(this.child.stderr).text();
    this.done = (async () => {
      let buffer = "";
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        for (let at = buffer.indexOf("\n"); at !== -1; at = buffer.indexOf("\n")) {
          const line = JSON.parse(buffer.slice(0, at)) as Line;
          buffer = buffer.slice(at + 1);
          const waiter = this.#waiting.get(line.id);
          if (waiter) waiter(line);
          else this.#answers.set(line.id, line);
        }
      }
    })();
  }

  /** Sends a request; resolves to its answer and how long it took, in ms. */
  async ask(request: Line): Promise<{ line: Line; ms: number }> {
    const started = performance.now();
    const answered = new Promise<Line>((resolve) => {
      const early = this.#answers.get(request.id);
      if (early) resolve(early);
      else this.#waiting.set(request.id, resolve);
    });
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
    const line = await answered;
    return { line, ms: performance.now() - started };
  }

  /** Closes stdin; resolves to the exit code and the ms from EOF to the exit. */
  async eof(): Promise<{ code: number; ms: number }> {
    const started = performance.now();
    await this.#writer.close();
    const { code } = await this.child.status;
    await this.done;
    return { code, ms: performance.now() - started };
  }

  async kill(): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await this.#writer.close().catch(() => {});
    await this.child.status;
    await this.done.catch(() => {});
    await this.stderr;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The outline and the parse errors of `file` asked at once (both parse Workers busy), then
 * `status` meanwhile: status within 500 ms, both within the timeout + 1 s; the outline TIMEOUT.
 */
async function assertResponsive(lspgate: Lspgate, file: string, id: number): Promise<void> {
  const outline = lspgate.ask({ id, action: "symbols", file, timeout: TIMEOUT_MS });
  const errors = lspgate.ask({ id: id + 1, action: "diagnostics", file, timeout: TIMEOUT_MS });
  await sleep(300);
  const status = await lspgate.ask({ id: id + 2, action: "status" });
  assert.equal(status.line.ok, true, JSON.stringify(status.line));
  assert.ok(status.ms < 500, `${file}: status took ${status.ms.toFixed(0)} ms during the parse`);
  const symbols = await outline;
  assert.ok(symbols.ms < TIMEOUT_MS + 1000, `${file}: symbols took ${symbols.ms.toFixed(0)} ms`);
  const error = symbols.line.error as { code: string; message: string } | undefined;
  assert.equal(error?.code, "TIMEOUT", `${file}: ${JSON.stringify(symbols.line)}`);
  assert.match(error.message, new RegExp(`^${file}'s .* syntax was not ready within 2000 ms: `));
  // The parse errors of a 60,000-deep file may be listed in time; if so, they are not "none".
  const diagnostics = await errors;
  assert.ok(diagnostics.ms < TIMEOUT_MS + 1000, `${file}: diagnostics ${diagnostics.ms} ms`);
  if (diagnostics.line.ok) {
    const files = (diagnostics.line.details as { files: { diagnostics: unknown[] }[] }).files;
    assert.ok(files[0].diagnostics.length > 0, `${file}: ${JSON.stringify(diagnostics.line)}`);
  } else {
    const code = (diagnostics.line.error as { code: string }).code;
    assert.equal(code, "TIMEOUT", `${file}: ${JSON.stringify(diagnostics.line)}`);
  }
}

Deno.test("deep nesting in each grammar: status answers meanwhile, the parse TIMEOUTs on time, EOF exits", async () => {
  const { root, files } = await deepWorkspace();
  const lspgate = new Lspgate(["--no-servers", "--root", root]);
  try {
    let id = 1;
    for (const file of files) {
      await assertResponsive(lspgate, file, id);
      id += 3;
    }
    // EOF while a parse runs: its answer is written, and the process exits right after.
    const pending = lspgate.ask({ id, action: "symbols", file: "deep1m.json", timeout: 2000 });
    await sleep(300);
    const exit = await lspgate.eof();
    assert.equal(((await pending).line.error as { code: string }).code, "TIMEOUT");
    assert.equal(exit.code, 0, await lspgate.stderr);
    assert.ok(exit.ms < TIMEOUT_MS + 2000, `exited ${exit.ms.toFixed(0)} ms after EOF`);
    // With nothing in flight, EOF exits within 2 s (no parse Worker holds the process).
    const idle = new Lspgate(["--no-servers", "--root", root]);
    await idle.ask({ id: 1, action: "symbols", file: "deep60k.py", timeout: 500 });
    const quiet = await idle.eof();
    assert.equal(quiet.code, 0);
    assert.ok(quiet.ms < 2000, `exited ${quiet.ms.toFixed(0)} ms after EOF`);
    await idle.stderr;
  } finally {
    await lspgate.kill();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("through the daemon, one client's deep file does not hold another client's status, nor the warm hook's deadline", async () => {
  const { root } = await deepWorkspace();
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_rt_" }));
  await Deno.chmod(runtime, 0o700);
  const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0" };
  // The warm hook's deadline, shorter than the parse (which may take a second); every run names
  // the same config, so every run (and the cleanup's `daemon stop`) reaches the same daemon.
  const config = await configFile({ hookDeadlineMs: 300 });
  const same = ["--no-servers", "--config", config, "--root", root];
  // As the daemon's own tests run it (its permissions are tested there).
  const flags = ["--daemon", ...same];
  const hostile = new Lspgate(flags, env, ALL);
  const other = new Lspgate(flags, env, ALL);
  try {
    // Both connected (the daemon started) before the clock starts.
    await hostile.ask({ id: 0, action: "status" });
    await other.ask({ id: 0, action: "status" });
    for (const file of ["deep60k.java", "deep1m.ts", "deep1m.json"]) {
      const outline = hostile.ask({ id: file, action: "symbols", file, timeout: TIMEOUT_MS });
      await sleep(300);
      const status = await other.ask({ id: `status ${file}`, action: "status" });
      assert.ok(status.ms < 500, `${file}: the other client's status took ${status.ms} ms`);
      const answer = await outline;
      assert.equal((answer.line.error as { code: string }).code, "TIMEOUT");
      assert.ok(answer.ms < TIMEOUT_MS + 1000, `${file}: symbols took ${answer.ms} ms`);
    }
    // The warm hook on a deep file gives up on time, and status still answers meanwhile.
    const started = performance.now();
    const hook = new Deno.Command(Deno.execPath(), {
      args: [...ALL, "hook", ...same, "deep1m.c"],
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    await sleep(1000);
    const status = await other.ask({ id: "status hook", action: "status" });
    assert.ok(status.ms < 500, `status took ${status.ms} ms during the hook`);
    const out = await hook;
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.match(stderr, /^lspgate hook: gave up after 0\.3 s/);
    // Process start and the daemon connection come on top of the deadline.
    assert.ok(performance.now() - started < 300 + 4000, "the warm hook kept its deadline");
    assert.equal((await hostile.eof()).code, 0);
    assert.equal((await other.eof()).code, 0);
  } finally {
    await hostile.kill();
    await other.kill();
    await new Deno.Command(Deno.execPath(), {
      args: [...ALL, "daemon", "stop", ...same],
      env,
      stdout: "null",
      stderr: "null",
    }).output();
    await Deno.remove(config);
    await Deno.remove(root, { recursive: true });
    await Deno.remove(runtime, { recursive: true });
  }
});

Deno.test("hook --no-daemon on a deep file exits within its deadline", async () => {
  const { root } = await deepWorkspace();
  // Shorter than the parse of a 1 MiB file (which may take a second or, on a busy machine, ten).
  const config = await configFile({ hookDeadlineMs: 300 });
  try {
    for (const file of ["deep1m.java", "deep1m.py"]) {
      const started = performance.now();
      const out = await new Deno.Command(Deno.execPath(), {
        args: [...START, "hook", "--no-daemon", "--no-servers", "--config", config, "--root", root],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = out.stdin.getWriter();
      const payload = {
        hook_event_name: "PostToolUse",
        tool_input: { file_path: join(root, file) },
      };
      await writer.write(new TextEncoder().encode(JSON.stringify(payload)));
      await writer.close();
      const result = await out.output();
      const ms = performance.now() - started;
      const stderr = new TextDecoder().decode(result.stderr);
      assert.equal(result.code, 0, stderr);
      assert.match(stderr, /^lspgate hook: gave up after 0\.3 s/, stderr);
      // Deno's start (a second or two on a busy machine) comes on top of the deadline.
      assert.ok(ms < 300 + 3000, `${file}: the hook took ${ms.toFixed(0)} ms`);
    }
  } finally {
    await Deno.remove(config);
    await Deno.remove(root, { recursive: true });
  }
});
