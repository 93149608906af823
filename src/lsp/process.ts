import { LspGateError, toLspGateError } from "../errors.ts";

/** How to start one language server process. */
export interface ProcessSpec {
  /** argv: the binary and its arguments. */
  command: string[];
  cwd: string;
  env?: Record<string, string>;
  /**
   * Keep the program's stderr out of every message and `status`: a program the repository
   * supplied (a trusted root's own) could print anything it read, addressed to the agent.
   */
  hideStderr?: boolean;
}

/** What stderrTail() gives for a program whose stderr is hidden. */
export const HIDDEN_STDERR = "(stderr not shown: the program comes from the workspace)";

/** A running server process: its stdio as byte streams, its stderr tail, and how it ended. */
export interface ServerProcess {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  /** Resolves with the exit code (or signal) once the process is gone. */
  /** `diedAt` is Date.now() when the process was seen gone, before its stderr was drained. */
  readonly exited: Promise<{ code: number; signal: string | null; diedAt: number }>;
  /** False as soon as the process is seen gone (before its stderr is drained and `exited` resolves). */
  readonly alive: boolean;
  /** The last lines the server wrote to stderr, for error messages and `status`. */
  stderrTail(lines?: number): string[];
  /** Kills the process and, where possible, its process group. */
  kill(signal?: Deno.Signal): void;
}

const STDERR_LINES_KEPT = 200;
const STDERR_LINE_CHARS = 1000;
// A "line" longer than this with no newline yet is cut, so a flood cannot grow memory.
const STDERR_PARTIAL_CHARS = 64 * 1024;
// After the exit, how long the rest of stderr may take to arrive: a grandchild that inherited
// the pipe would otherwise keep it open, and the exit unnoticed, for as long as it lives.
const STDERR_DRAIN_MS = 250;

/**
 * Spawns a server; a missing binary is SERVER_NOT_INSTALLED, a denied one PERMISSION_DENIED.
 *
 * Rationale: the server runs in its own session and process group (`detached`, which calls
 * setsid()), so a kill reaches the helpers it started too (typescript-language-server's tsserver,
 * a build daemon). Signalling a group needs Deno's unscoped `--allow-run`; with a scoped one only
 * the server itself is signalled, and its helpers see their pipes close. The bubblewrap sandbox
 * needs neither: its PID namespace dies with the server.
 */
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
      detached: true,
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
  const pid = child.pid;
  const tail: string[] = [];
  const stderrDone = collectLines(child.stderr, tail);
  let running = true;
  const exited = child.status.then(async (status) => {
    running = false;
    const diedAt = Date.now();
    // Helpers left behind in the server's group die with it.
    signalGroup(pid, "SIGKILL");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const drained = new Promise<void>((resolve) => timer = setTimeout(resolve, STDERR_DRAIN_MS));
    await Promise.race([stderrDone, drained]);
    clearTimeout(timer);
    return { code: status.code, signal: status.signal ?? null, diedAt };
  });
  return {
    pid,
    get alive() {
      return running;
    },
    stdin: child.stdin,
    stdout: child.stdout,
    exited,
    stderrTail: (lines = 20) => spec.hideStderr ? [HIDDEN_STDERR] : tail.slice(-lines),
    kill(signal: Deno.Signal = "SIGTERM") {
      if (running) signalGroup(pid, signal);
      // Also the server itself, in case it moved to a group of its own.
      try {
        child.kill(signal);
      } catch {
        // Already gone: nothing to kill.
      }
    },
  };
}

/** Signals the process group `pgid`, best effort. */
function signalGroup(pgid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pgid, signal);
  } catch {
    // NotCapable: a scoped --allow-run (see spawnServer). ESRCH: the group is already empty.
  }
}

async function collectLines(stream: ReadableStream<Uint8Array>, into: string[]) {
  const decoder = new TextDecoder();
  let partial = "";
  const push = (line: string) => {
    if (line.trim() === "") return;
    into.push(line.length > STDERR_LINE_CHARS ? line.slice(0, STDERR_LINE_CHARS) + "…" : line);
  };
  try {
    for await (const chunk of stream) {
      const text = partial + decoder.decode(chunk, { stream: true });
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) push(line);
      if (partial.length > STDERR_PARTIAL_CHARS) {
        push(partial);
        partial = "";
      }
      if (into.length > STDERR_LINES_KEPT) into.splice(0, into.length - STDERR_LINES_KEPT);
    }
  } catch {
    // The pipe broke because the process died; the tail we have is what there is.
  }
  push(partial);
  if (into.length > STDERR_LINES_KEPT) into.splice(0, into.length - STDERR_LINES_KEPT);
}
