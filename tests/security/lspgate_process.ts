// lspgate as a child process speaking JSON lines, with deadlines on every wait: tests of attacks
// that may hang a process (FIFOs) run lspgate here, never in the test process, and kill it
// (by its own handle) if it does not answer or exit in time.
import { join } from "node:path";
import { type AttackFixture, HOSTILE_SERVER, LSPGATE_DIR } from "./fixture.ts";

/** One protocol line lspgate wrote. */
export interface ProtocolLine {
  id: number | string | null;
  ok: boolean;
  error?: { code: string; message: string };
  details?: Record<string, unknown>;
}

/** A running `deno run mod.ts` over the fixture's root. */
export class LspgateProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: ProtocolLine[] = [];
  readonly #waiters = new Set<() => void>();
  readonly #stdoutDone: Promise<void>;
  readonly #stderr: Promise<string>;
  #exit?: Deno.CommandStatus;
  readonly #status: Promise<Deno.CommandStatus>;

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#stderr = new Response(child.stderr).text();
    this.#stdoutDone = this.#readLines(child.stdout);
    this.#status = child.status.then((status) => this.#exit = status);
  }

  /**
   * Starts lspgate (`-A`) over `fx.root` with a config that runs the hostile server for `.ts`
   * files (through the deno adapter's configured command) and disables the other adapters.
   */
  static async start(fx: AttackFixture, flags: string[] = []): Promise<LspgateProcess> {
    const config = join(fx.base, "scratch", "config.json");
    const hostile = [
      Deno.execPath(),
      "run",
      "-A",
      "--no-config",
      HOSTILE_SERVER,
      "--outside",
      fx.outside,
      "--link",
      fx.link,
      "--log",
      fx.log,
    ];
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        servers: {
          deno: { command: hostile },
          typescript: { disabled: true },
          pyright: { disabled: true },
        },
      }),
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        join(LSPGATE_DIR, "mod.ts"),
        "--root",
        fx.root,
        "--config",
        config,
        // The fake server is a script in this checkout that bubblewrap would not show it; these
        // attacks are on lspgate itself, whatever confines the server.
        ...(flags.includes("--sandbox") ? [] : ["--sandbox", "none"]),
        ...flags,
      ],
      cwd: LSPGATE_DIR,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new LspgateProcess(child);
  }

  /** Sends one request line. */
  async send(request: Record<string, unknown>): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
  }

  /** The answer to `id`, or undefined if none came within `ms`. */
  async answer(id: number | string, ms: number): Promise<ProtocolLine | undefined> {
    const found = () => this.#lines.find((line) => line.id === id);
    await this.#until(() => found() !== undefined || this.#exit !== undefined, ms);
    return found();
  }

  /** Closes stdin (EOF) and waits `ms` for the exit status; undefined if it is still running. */
  async endInput(ms: number): Promise<Deno.CommandStatus | undefined> {
    await this.#writer.close().catch(() => {});
    await this.#until(() => this.#exit !== undefined, ms);
    return this.#exit;
  }

  /** Every line written so far, and stderr once the process is gone. */
  get lines(): readonly ProtocolLine[] {
    return this.#lines;
  }

  /** Kills the process if it still runs (SIGKILL: it may be stuck in a system call), then reaps it. */
  async stop(): Promise<string> {
    if (this.#exit === undefined) {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // Exited meanwhile.
      }
    }
    await this.#writer.close().catch(() => {});
    await this.#status;
    await this.#stdoutDone;
    return await this.#stderr;
  }

  async #readLines(stdout: ReadableStream<Uint8Array>): Promise<void> {
    let partial = "";
    for await (const chunk of stdout.pipeThrough(new TextDecoderStream())) {
      partial += chunk;
      const parts = partial.split("\n");
      partial = parts.pop() ?? "";
      for (const part of parts) if (part.trim()) this.#lines.push(JSON.parse(part));
      for (const wake of this.#waiters) wake();
    }
  }

  async #until(done: () => boolean, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done() && Date.now() < deadline) {
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => wake = resolve);
      this.#waiters.add(wake);
      const timer = setTimeout(wake, Math.min(50, Math.max(1, deadline - Date.now())));
      await woken;
      clearTimeout(timer);
      this.#waiters.delete(wake);
    }
  }
}
