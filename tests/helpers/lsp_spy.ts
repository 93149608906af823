/**
 * A transparent stand-in for a real language server's binary, for tests that must see what
 * lspgate asks the server: it runs the real server as its child, passes every byte through
 * unchanged both ways, and appends one JSON line per message lspgate sent (`{method, id?}`) to a
 * log file. It answers nothing itself. With `--hold GATE` it is also a server slow to start, as
 * long as a test wants: nothing the server says (its initialize answer first) is passed on until
 * the file GATE exists.
 *
 * Run as `deno run -A tests/helpers/lsp_spy.ts LOG [--hold GATE] -- COMMAND...`; spyCommand()
 * builds that.
 *
 * @module
 */

/** Options of spyCommand(). */
export interface SpyOptions {
  /** Hold everything the server says until this file exists. */
  holdUntil?: string;
}

/** The command that runs `command` (a real server) behind the spy, logging to `log`. */
export function spyCommand(
  log: string,
  command: string[],
  options: SpyOptions = {},
): [string, ...string[]] {
  const script = new URL(import.meta.url).pathname;
  const hold = options.holdUntil ? ["--hold", options.holdUntil] : [];
  return [Deno.execPath(), "run", "-A", "--no-config", script, log, ...hold, "--", ...command];
}

/** One message lspgate sent the server. */
export interface SpiedMessage {
  method: string;
  id?: number | string;
}

/** The messages logged so far (an absent log is an empty one). */
export async function readSpyLog(log: string): Promise<SpiedMessage[]> {
  let text = "";
  try {
    text = await Deno.readTextFile(log);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

/** Splits Content-Length framed messages out of the chunks pushed in; bodies parsed as JSON. */
class Frames {
  #buffer = new Uint8Array(0);
  readonly #decoder = new TextDecoder();

  /** The messages completed by `chunk` (a body that is not JSON is skipped). */
  push(chunk: Uint8Array): Record<string, unknown>[] {
    const joined = new Uint8Array(this.#buffer.length + chunk.length);
    joined.set(this.#buffer);
    joined.set(chunk, this.#buffer.length);
    this.#buffer = joined;
    const messages: Record<string, unknown>[] = [];
    while (true) {
      const head = this.#decoder.decode(this.#buffer.subarray(0, 1024));
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) break;
      const length = Number(/content-length:\s*(\d+)/i.exec(head.slice(0, end))?.[1]);
      // The header is ASCII: its characters are its bytes.
      const start = end + 4;
      if (!Number.isFinite(length) || this.#buffer.length < start + length) break;
      const body = this.#decoder.decode(this.#buffer.subarray(start, start + length));
      this.#buffer = this.#buffer.slice(start + length);
      try {
        messages.push(JSON.parse(body));
      } catch {
        // Not ours to judge.
      }
    }
    return messages;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function main(args: string[]) {
  const log = args[0];
  const cut = args.indexOf("--");
  const hold = args.indexOf("--hold") > 0 && args.indexOf("--hold") < cut
    ? args[args.indexOf("--hold") + 1]
    : undefined;
  const command = args.slice(cut + 1);
  const child = new Deno.Command(command[0], {
    args: command.slice(1),
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // The server's output goes back untouched, once the gate (if any) is open.
  const back = (async () => {
    while (hold && !(await exists(hold))) await new Promise((r) => setTimeout(r, 20));
    await child.stdout.pipeTo(Deno.stdout.writable);
  })().catch(() => {});
  // The spy ends with its server, whether or not its own input has ended.
  child.status.then(async (status) => {
    await back;
    Deno.exit(status.code);
  });
  const toServer = child.stdin.getWriter();
  const frames = new Frames();
  try {
    for await (const chunk of Deno.stdin.readable) {
      // Logged before the chunk is passed on: a message answered is a message logged.
      for (const message of frames.push(chunk)) {
        if (typeof message.method !== "string") continue;
        const id = message.id === undefined ? {} : { id: message.id };
        Deno.writeTextFileSync(log, JSON.stringify({ method: message.method, ...id }) + "\n", {
          append: true,
        });
      }
      await toServer.write(chunk);
    }
    await toServer.close();
  } catch {
    // The server went away: its exit status ends the spy.
  }
}

if (import.meta.main) await main(Deno.args);
