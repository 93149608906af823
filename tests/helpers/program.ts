import { fileURLToPath } from "node:url";

/** The repository root (where deno.json and mod.ts are). */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A protocol line lspgate wrote. */
export type Line = Record<string, unknown>;

/**
 * lspgate run as a program (`deno run -A mod.ts <args>`), spoken to in JSON lines: write
 * requests, read answers one line at a time, close stdin, wait for the exit.
 */
export class Program {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: AsyncIterator<string>;
  readonly #stderr: Promise<string>;
  /** Every stdout line so far, raw. */
  readonly raw: string[] = [];

  /**
   * `deno run -A mod.ts ARGS`; with `command`, ARGS are that command's whole argument list (a
   * `deno task start`, a bundle under the README's grant).
   */
  constructor(args: string[], env: Record<string, string> = {}, command?: string) {
    this.#child = new Deno.Command(command ?? Deno.execPath(), {
      args: command ? args : ["run", "-A", "mod.ts", ...args],
      cwd: REPO_ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1", ...env },
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#lines = splitLines(this.#child.stdout)[Symbol.asyncIterator]();
    this.#stderr = new Response(this.#child.stderr).text();
  }

  /** The program's process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Sends the program a signal. */
  signal(signal: Deno.Signal): void {
    this.#child.kill(signal);
  }

  /** Writes raw lines (a newline is added to each). */
  async send(...lines: (string | Record<string, unknown>)[]): Promise<void> {
    const text = lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l)) + "\n").join("");
    await this.#writer.write(new TextEncoder().encode(text));
  }

  /** Sends one request and reads the next line: its answer, where requests go one at a time. */
  async ask(request: Record<string, unknown>): Promise<Line> {
    await this.send(request);
    return (await this.read(1))[0];
  }

  /** Reads the next `count` stdout lines, each parsed as JSON (a line that is not JSON throws). */
  async read(count: number): Promise<Line[]> {
    const out: Line[] = [];
    while (out.length < count) {
      const next = await this.#lines.next();
      if (next.done) {
        throw new Error(
          `stdout ended after ${this.raw.length} lines; stderr:\n${await this.#stderr}`,
        );
      }
      this.raw.push(next.value);
      out.push(JSON.parse(next.value));
    }
    return out;
  }

  /** Closes stdin, reads what is left on stdout, and waits for the exit. */
  async finish(): Promise<{ code: number; rest: string[]; stderr: string }> {
    await this.#writer.close();
    const rest: string[] = [];
    for (let next = await this.#lines.next(); !next.done; next = await this.#lines.next()) {
      rest.push(next.value);
      this.raw.push(next.value);
    }
    const { code } = await this.#child.status;
    return { code, rest, stderr: await this.#stderr };
  }

  /** Kills the program if a test failed before finish(); drains its pipes. */
  async kill(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await this.#writer.close().catch(() => {});
    for (let next = await this.#lines.next(); !next.done; next = await this.#lines.next()) {
      // Drain.
    }
    await this.#child.status;
    await this.#stderr;
  }
}

async function* splitLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) !== -1) {
      yield buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
    }
  }
  if (buffer) yield buffer;
}

/** `deno task start` (the README's grant, never -A) with `args`, as a Program. */
export function startTask(args: string[], env: Record<string, string> = {}): Program {
  return new Program(
    ["task", "--quiet", "--config", `${REPO_ROOT}deno.json`, "start", ...args],
    env,
    Deno.execPath(),
  );
}
