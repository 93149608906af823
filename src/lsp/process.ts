import { LspGateError, toLspGateError } from "../errors.ts";

/** How to start one language server process. */
export interface ProcessSpec {
  /** argv: the binary and its arguments. */
  command: string[];
  cwd: string;
  env?: Record<string, string>;
}

/** A running server process: its stdio as byte streams, its stderr tail, and how it ended. */
export interface ServerProcess {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  /** Resolves with the exit code (or signal) once the process is gone. */
  readonly exited: Promise<{ code: number; signal: string | null }>;
  /** The last lines the server wrote to stderr, for error messages and `status`. */
  stderrTail(lines?: number): string[];
  /** Kills the process and, where possible, its process group. */
  kill(signal?: Deno.Signal): void;
}

const STDERR_LINES_KEPT = 200;

/** Spawns a server; a missing binary is SERVER_NOT_INSTALLED, a denied one PERMISSION_DENIED. */
export function spawnServer(spec: ProcessSpec, installHint: string): ServerProcess {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(spec.command[0], {
      args: spec.command.slice(1),
      cwd: spec.cwd,
      env: spec.env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new LspGateError(
        "SERVER_NOT_INSTALLED",
        `${spec.command[0]} was not found. ${installHint}`,
        { command: spec.command },
      );
    }
    const converted = toLspGateError(error);
    if (converted.code === "PERMISSION_DENIED") throw converted;
    throw new LspGateError(
      "SERVER_START_FAILED",
      `could not start ${spec.command.join(" ")}: ${converted.message}`,
      { command: spec.command },
    );
  }
  const tail: string[] = [];
  const stderrDone = collectLines(child.stderr, tail);
  const exited = child.status.then(async (status) => {
    await stderrDone;
    return { code: status.code, signal: status.signal ?? null };
  });
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    exited,
    stderrTail: (lines = 20) => tail.slice(-lines),
    kill(signal: Deno.Signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch {
        // Already gone: nothing to kill.
      }
    },
  };
}

async function collectLines(stream: ReadableStream<Uint8Array>, into: string[]) {
  const decoder = new TextDecoder();
  let partial = "";
  try {
    for await (const chunk of stream) {
      const text = partial + decoder.decode(chunk, { stream: true });
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (line.trim() === "") continue;
        into.push(line.length > 1000 ? line.slice(0, 1000) + "…" : line);
      }
      if (into.length > STDERR_LINES_KEPT) into.splice(0, into.length - STDERR_LINES_KEPT);
    }
  } catch {
    // The pipe broke because the process died; the tail we have is what there is.
  }
  if (partial.trim()) into.push(partial);
}
