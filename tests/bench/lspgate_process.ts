// lspgate as an agent runs it: `deno run <the start task's flags> mod.ts --root DIR` in its own
// process, one JSON request per stdin line, one JSON response per stdout line.
import { fileURLToPath } from "node:url";
import { V8_FLAGS_ARG } from "../../src/v8_flags.ts";

/** `deno run` as the start task has it, but for the write and net grants: V8 flags, read, env, run. */
export const START_RUN = ["run", V8_FLAGS_ARG, "--allow-read", "--allow-env", "--allow-run"];

/** One response line, as much of it as the benchmark reads. */
export interface GateResponse {
  id: number;
  ok: boolean;
  content?: { type: string; text: string }[];
  details?: Record<string, unknown>;
  error?: { code: string; message: string };
}

let defaultHome = fileURLToPath(new URL("../../", import.meta.url));

/** Runs lspgate from another checkout (`--lspgate DIR`) by default. */
export function useCheckout(dir: string): void {
  defaultHome = dir;
}
const encoder = new TextEncoder();

/** The `deno task start` write grant: lspgate's runtime folders, as that task names them. */
export function startWriteGrant(): string {
  const user = Deno.env.get("USER") ?? "";
  const xdg = Deno.env.get("XDG_RUNTIME_DIR");
  const tmp = Deno.env.get("TMPDIR");
  const folders = [
    ...(xdg ? [`${xdg}/lspgate`] : []),
    ...(tmp ? [`${tmp}/lspgate-${user}`] : []),
    `/tmp/lspgate-${user}`,
  ];
  return `--allow-write=${folders.join(",")}`;
}

/**
 * Ends a benchmark's lspgate process: EOF on its stdin, SIGKILL after 10 s if it has not exited,
 * then waits for its readers (`done`).
 */
export async function endProcess(
  writer: WritableStreamDefaultWriter<Uint8Array>,
  child: Deno.ChildProcess,
  done: Promise<unknown>,
): Promise<void> {
  await writer.close().catch(() => {});
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await child.status;
  clearTimeout(timer);
  await done;
}

/** A running lspgate JSON-lines process. */
export class LspgateProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, (response: GateResponse) => void>();
  readonly #stderr: string[] = [];
  #nextId = 1;
  readonly done: Promise<void>;

  /**
   * Starts lspgate on `root`; `home` is the checkout to run (default: this one), or a bundle
   * (`deno task bundle`'s `.js` file, run as the npm package runs it); `extra` adds
   * Deno flags (`deno`: a grant for the daemon's folder), lspgate flags (e.g. `--daemon`) and
   * environment (e.g. a private XDG_RUNTIME_DIR); the start task's write grant unless `deno`
   * grants write or `writeGrant` is false.
   */
  constructor(
    readonly root: string,
    readonly sandbox: "none" | "auto",
    home = defaultHome,
    extra: {
      deno?: string[];
      args?: string[];
      env?: Record<string, string>;
      /** false: no write grant at all (the watcher's flush is then best effort). */
      writeGrant?: boolean;
    } = {},
  ) {
    const bundle = home.endsWith(".js");
    home = bundle || home.endsWith("/") ? home : home + "/";
    this.#child = new Deno.Command(Deno.execPath(), {
      // The `deno task start` flags: lspgate's V8 flags; read, env, run; write on its runtime
      // folders only (where the watcher's flush is an exact barrier); no net.
      args: [
        ...START_RUN,
        ...extra.writeGrant === false ||
            extra.deno?.some((flag) => flag.startsWith("--allow-write"))
          ? []
          : [startWriteGrant()],
        ...extra.deno ?? [],
        // A bundle has no deno.json beside it: its Workers' permissions need the flag.
        ...bundle
          ? ["--no-config", "--unstable-worker-options", home]
          : ["--config", `${home}deno.json`, `${home}mod.ts`],
        "--root",
        root,
        "--sandbox",
        sandbox,
        ...extra.args ?? [],
      ],
      env: extra.env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.done = Promise.all([this.#read(), this.#drainStderr()]).then(() => {});
  }

  /** The process id of lspgate itself (not its servers). */
  get pid(): number {
    return this.#child.pid;
  }

  /**
   * Sends one request (an id is added) and resolves with its response line; a response that
   * never comes is an error after `timeoutMs`, so that a hang cannot stall the benchmark.
   */
  request(request: Record<string, unknown>, timeoutMs = 120_000): Promise<GateResponse> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        resolve({
          id,
          ok: false,
          error: { code: "BENCH_TIMEOUT", message: `no answer in ${timeoutMs} ms` },
        });
      }, timeoutMs);
      this.#pending.set(id, (response) => {
        clearTimeout(timer);
        resolve(response);
      });
      this.#writer.write(encoder.encode(JSON.stringify({ id, ...request }) + "\n"));
    });
  }

  /** The last lines lspgate wrote to stderr, for a failure message. */
  stderrTail(lines = 10): string {
    return this.#stderr.slice(-lines).join("\n");
  }

  /** EOF on stdin: lspgate answers what is in flight, shuts its servers down and exits. */
  close(): Promise<void> {
    return endProcess(this.#writer, this.#child, this.done);
  }

  async #read() {
    const lines = this.#child.stdout.pipeThrough(new TextDecoderStream());
    let buffer = "";
    for await (const chunk of lines) {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const response = JSON.parse(line) as GateResponse;
        this.#pending.get(response.id)?.(response);
        this.#pending.delete(response.id);
      }
    }
  }

  async #drainStderr() {
    for await (const chunk of this.#child.stderr.pipeThrough(new TextDecoderStream())) {
      this.#stderr.push(...chunk.split("\n").filter(Boolean));
      if (this.#stderr.length > 200) this.#stderr.splice(0, this.#stderr.length - 200);
    }
  }
}

/** Resident memory of a process in MiB (VmRSS: every thread, so every Worker, is in it). */
export function rssMiB(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * RSS of a process tree in MiB: `pid` (unless `withRoot` is false) and every descendant, from
 * /proc. For lspgate, its descendants are its language servers (and, sandboxed, bubblewrap).
 */
export function treeRssMiB(pid: number, withRoot = true): number {
  const children = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...children.get(parent) ?? [], Number(entry.name)]);
    } catch {
      // Gone meanwhile.
    }
  }
  let total = 0;
  const stack = withRoot ? [pid] : [...children.get(pid) ?? []];
  while (stack.length) {
    const next = stack.pop()!;
    const rss = rssMiB(next);
    if (Number.isFinite(rss)) total += rss;
    stack.push(...children.get(next) ?? []);
  }
  return total;
}
