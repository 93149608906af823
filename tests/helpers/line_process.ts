// A child process spoken to in JSON lines: one message a line in, one a line out (lspgate's JSON
// lines, or MCP over stdio).

/** Starts `command ARGS` with its stdin and stdout piped (stderr dropped unless asked); send() and next(). */
export function spawnLines(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env: Record<string, string>; stderr?: "piped" | "null" },
) {
  const child = spawnPiped(command, args, { ...options, stderr: options.stderr ?? "null" });
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    child,
    /** Writes one message as a line. */
    send: (message: unknown) =>
      writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n")),
    /** The next line the child writes, parsed. */
    // deno-lint-ignore no-explicit-any
    async next(): Promise<any> {
      while (!buffered.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error("the child's output ended");
        buffered += value;
      }
      const line = buffered.slice(0, buffered.indexOf("\n"));
      buffered = buffered.slice(buffered.indexOf("\n") + 1);
      return JSON.parse(line);
    },
    /** Ends the child's input and the reading of its output. */
    async close() {
      await writer.close().catch(() => {});
      await reader.cancel().catch(() => {});
    },
  };
}

/** The lines of a byte stream as they come (without their newline); a reset stream just ends. */
export async function* streamLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = "";
  try {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let cut: number;
      while ((cut = buffer.indexOf("\n")) !== -1) {
        yield buffer.slice(0, cut);
        buffer = buffer.slice(cut + 1);
      }
    }
  } catch {
    // Reset (a daemon closing its socket): the end.
  }
}

/** Runs `command args` in `cwd` with `input` on stdin (then closed); its exit and output. */
export async function pipeThrough(
  command: string,
  args: readonly string[],
  input: Uint8Array,
  options: { cwd: string; env?: Record<string, string> },
): Promise<Deno.CommandOutput> {
  const child = spawnPiped(command, args, { ...options, stderr: "piped" });
  const writer = child.stdin.getWriter();
  await writer.write(input);
  await writer.close();
  return await child.output();
}

/** `command ARGS` started with stdin and stdout piped, stderr as asked. */
function spawnPiped(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; stderr: "piped" | "null" },
): Deno.ChildProcess {
  return new Deno.Command(command, {
    args: [...args],
    cwd: options.cwd,
    env: options.env,
    stdin: "piped",
    stdout: "piped",
    stderr: options.stderr,
  }).spawn();
}
