// The deep-nesting test's workspace and processes: every lspgate run here is deno.json's start
// task as written (the README's grant: read, env, run, write on the runtime folder, net for the
// daemon's socket; never -A), exec'd by sh so that the process is lspgate itself.
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/program.ts";

/** Each grammar's way to nest forever: a prefix, then `open` repeated. */
const NESTINGS: [string, string, string][] = [
  ["ts", "function f() ", "{"],
  ["java", "class A ", "{"],
  ["json", "", "["],
  ["c", "int f() ", "{"],
  ["py", "x = ", "["],
];

/** A workspace of the deep files (`deep60k.ts`, `deep1m.ts`, …) and a private runtime folder. */
export async function deepWorkspace(): Promise<{ root: string; runtime: string; files: string[] }> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_deep_" }));
  const files: string[] = [];
  for (const [extension, prefix, open] of NESTINGS) {
    for (const [label, depth] of [["60k", 60_000], ["1m", 1024 * 1024]] as const) {
      const file = `deep${label}.${extension}`;
      await Deno.writeTextFile(join(root, file), prefix + open.repeat(depth));
      files.push(file);
    }
  }
  // The daemon's socket and lspgate's private folder: the test's own, so the daemon is too.
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_rt_" }));
  await Deno.chmod(runtime, 0o700);
  return { root, runtime, files };
}

const START_TASK: string = JSON.parse(
  await Deno.readTextFile(join(REPO_ROOT, "deno.json")),
).tasks.start;

/** `deno task start ARGS` as a spawnable command (sh expands the task's variables). */
export function startTask(
  args: string[],
  runtime: string,
  env: Record<string, string> = {},
): Deno.Command {
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  return new Deno.Command("sh", {
    args: ["-c", `exec ${START_TASK} ${quoted}`],
    cwd: REPO_ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", XDG_RUNTIME_DIR: runtime, ...env },
  });
}

/** A protocol line. */
export type Line = Record<string, unknown>;

/** An lspgate process spoken to in JSON lines, each answer stamped with when it came. */
export class Lspgate {
  readonly child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #waiting = new Map<unknown, (line: Line) => void>();
  readonly #answers = new Map<unknown, Line>();
  readonly done: Promise<void>;
  readonly stderr: Promise<string>;

  /** Runs `deno task start ARGS` with `runtime` as XDG_RUNTIME_DIR. */
  constructor(args: string[], runtime: string, env: Record<string, string> = {}) {
    const child = startTask(args, runtime, env).spawn();
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
    const ms = performance.now() - started;
    await this.done;
    return { code, ms };
  }

  /** Ends the process if it still runs. */
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

/** What a finished hook run said, and how long it took. */
export interface HookRun {
  code: number;
  stderr: string;
  ms: number;
}

/** `deno task start hook ARGS` with Claude Code's PostToolUse payload for `file` on stdin. */
export async function runHook(
  args: string[],
  file: string,
  runtime: string,
  env: Record<string, string> = {},
): Promise<HookRun> {
  const started = performance.now();
  const child = startTask(["hook", ...args], runtime, env).spawn();
  const writer = child.stdin.getWriter();
  const payload = {
    hook_event_name: "PostToolUse",
    tool_name: "Write",
    tool_input: { file_path: file },
  };
  await writer.write(new TextEncoder().encode(JSON.stringify(payload)));
  await writer.close();
  const out = await child.output();
  return {
    code: out.code,
    stderr: new TextDecoder().decode(out.stderr),
    ms: performance.now() - started,
  };
}

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
