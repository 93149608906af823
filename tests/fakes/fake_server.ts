/**
 * A scripted language server that misbehaves on purpose, for fault-injection tests only (never a
 * stand-in for a real server's answers).
 *
 * Run as `deno run -A tests/fakes/fake_server.ts --mode <mode> [--log FILE] [--child]`. It speaks
 * Content-Length framed JSON-RPC on stdio; in `normal` mode it answers initialize
 * (definition, hover and references providers), definition (a fixed location in the asked file),
 * hover, references, shutdown and exit. `--log FILE` appends one JSON line per message received
 * (`{pid, method, id?, uri?, version?}`) plus a `start` line; `--child` starts a sleeping child
 * process (its pid is logged as `child`), to prove a kill reaches the whole process group.
 *
 * @module
 */

import type { Adapter } from "../../src/servers/adapter.ts";
import { JsonRpcConnection, ResponseError } from "../../src/jsonrpc/mod.ts";

/** The ways the fake misbehaves. */
export const FAKE_MODES = [
  "normal",
  "exit-during-initialize",
  "exit-mid-request",
  "never-answer-hover",
  "never-answer",
  "garbage",
  "huge-response",
  "ignore-shutdown",
  "crash-always",
  "stderr-flood",
  "content-modified",
  "refuse-hover",
  "stop-reading",
  "wedged-once",
] as const;

/** One of {@linkcode FAKE_MODES}. */
export type FakeMode = typeof FAKE_MODES[number];

/** Size of the hover the `huge-response` mode sends. */
export const HUGE_HOVER_CHARS = 50 * 1024 * 1024;

/** Options of {@linkcode fakeAdapter}. */
export interface FakeAdapterOptions {
  /** File the fake appends a JSON line per received message to. */
  log?: string;
  /** Start a sleeping child process, to test process-group kills. */
  child?: boolean;
  /** The adapter's wedgedBy (`wedged-once` answers references with such an error). */
  wedgedBy?: string;
}

/** An adapter for `.fake` files whose server is this script in `mode`. */
export function fakeAdapter(mode: FakeMode, options: FakeAdapterOptions = {}): Adapter {
  const script = new URL(import.meta.url).pathname;
  const command = [Deno.execPath(), "run", "-A", "--no-config", script, "--mode", mode];
  if (options.log) command.push("--log", options.log);
  if (options.child) command.push("--child");
  return {
    id: "fake",
    languages: { ".fake": "fake" },
    rootMarkers: [],
    priority: 0,
    resolve: () => Promise.resolve({ command }),
    installHint: "It is a test fake: run it with deno.",
    readiness: "immediate",
    ...(options.wedgedBy ? { wedgedBy: options.wedgedBy } : {}),
  };
}

/** One line of the fake's log. */
export interface FakeLogLine {
  pid: number;
  method: string;
  id?: number | string;
  uri?: string;
  version?: number;
  /** The text of a didOpen. */
  text?: string;
  child?: number;
}

/** Reads the fake's log; an absent file is an empty log. */
export async function readFakeLog(path: string): Promise<FakeLogLine[]> {
  let text = "";
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

/** True while process `pid` runs (a zombie, dead but not yet reaped, counts as gone). */
export function processAlive(pid: number): boolean {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

/** Polls `check` until it returns true; fails with `what` after `timeoutMs`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const encoder = new TextEncoder();

function writeAll(rid: { writeSync(p: Uint8Array): number }, bytes: Uint8Array) {
  let done = 0;
  while (done < bytes.length) done += rid.writeSync(bytes.subarray(done));
}

function frame(body: string): Uint8Array {
  const bytes = encoder.encode(body);
  const header = encoder.encode(`Content-Length: ${bytes.length}\r\n\r\n`);
  const out = new Uint8Array(header.length + bytes.length);
  out.set(header);
  out.set(bytes, header.length);
  return out;
}

function main(args: string[]) {
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const mode = (option("--mode") ?? "normal") as FakeMode;
  if (!FAKE_MODES.includes(mode)) throw new Error(`unknown mode ${mode}`);
  const logFile = option("--log");
  const log = (line: Omit<FakeLogLine, "pid">) => {
    if (!logFile) return;
    Deno.writeTextFileSync(logFile, JSON.stringify({ pid: Deno.pid, ...line }) + "\n", {
      append: true,
    });
  };
  const stderr = (text: string) => writeAll(Deno.stderr, encoder.encode(text));
  const never = () => new Promise<never>(() => {});
  let initialized = false;
  let contentModified = 0;
  // `wedged-once`: the first process to be asked references fails them for good (pyright's fault);
  // its marker beside the log lets a restarted one answer.
  let wedged = false;

  log({ method: "start" });
  if (args.includes("--child")) {
    const child = new Deno.Command("sleep", {
      args: ["300"],
      stdin: "null",
      stdout: "null",
      stderr: "inherit",
    }).spawn();
    child.unref();
    log({ method: "child", child: child.pid });
  }
  if (mode === "ignore-shutdown") {
    // A stubborn server: survives SIGTERM and the end of its input; only SIGKILL stops it.
    Deno.addSignalListener("SIGTERM", () => {});
    setInterval(() => {}, 60_000);
  }
  if (mode === "stderr-flood") {
    const line = "fake: flooding stderr " + "x".repeat(200) + "\n";
    const burst = encoder.encode(line.repeat(2000));
    const endless = encoder.encode("y".repeat(256 * 1024));
    const flood = setInterval(() => {
      try {
        writeAll(Deno.stderr, burst);
        // A "line" that never ends must not grow the client's buffer without bound.
        writeAll(Deno.stderr, endless);
      } catch {
        clearInterval(flood);
      }
    }, 5);
  }

  // Frames go out with synchronous writes so junk written in between never splits one.
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => writeAll(Deno.stdout, chunk),
  });
  const connection = new JsonRpcConnection({ readable: Deno.stdin.readable, writable });
  const junk = () => {
    writeAll(Deno.stdout, encoder.encode("this is not a header\nneither is this\r\n"));
    writeAll(Deno.stdout, frame("{not json at all"));
    writeAll(Deno.stdout, encoder.encode("Content-Length: banana\r\n\r\n"));
  };

  connection.onNotification((method, params) => {
    const doc = (params as { textDocument?: { uri?: string; version?: number; text?: string } })
      ?.textDocument;
    log({ method, uri: doc?.uri, version: doc?.version, text: doc?.text });
    if (method === "initialized") {
      initialized = true;
      if (mode === "crash-always") setTimeout(() => Deno.exit(4), 100);
      // Busy elsewhere for good: it reads nothing more, so its stdin's pipe fills.
      if (mode === "stop-reading") Deno.kill(Deno.pid, "SIGSTOP");
    }
    if (method === "exit" && mode !== "ignore-shutdown") Deno.exit(0);
  });

  connection.onRequest(async (method, params) => {
    const p = params as { textDocument?: { uri?: string } };
    log({ method, uri: p?.textDocument?.uri });
    if (mode === "garbage") junk();
    if (method === "initialize") {
      if (mode === "exit-during-initialize") {
        stderr("fake: cannot start, the project is broken\n");
        Deno.exit(2);
      }
      return {
        capabilities: {
          textDocumentSync: 1,
          definitionProvider: true,
          hoverProvider: true,
          referencesProvider: true,
        },
        serverInfo: { name: "fake", version: "1.0.0" },
      };
    }
    if (mode === "never-answer" || mode === "crash-always") return await never();
    if (!initialized && method !== "shutdown") {
      throw new ResponseError(-32002, "server not initialized");
    }
    const location = {
      uri: p?.textDocument?.uri ?? "file:///nowhere.fake",
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } },
    };
    switch (method) {
      case "textDocument/definition":
        if (mode === "exit-mid-request") {
          stderr("fake: segfault while resolving the definition\n");
          Deno.exit(3);
        }
        return [location];
      case "textDocument/references":
        if (mode === "wedged-once" && logFile) {
          try {
            Deno.writeTextFileSync(`${logFile}.wedged`, "", { createNew: true });
            wedged = true;
          } catch {
            // Another process wedged before: this one answers.
          }
          if (wedged) {
            throw new ResponseError(
              -32603,
              "Request textDocument/references failed with message: this._token.cancel is not " +
                "a function",
            );
          }
        }
        return [location];
      case "textDocument/hover":
        if (mode === "never-answer-hover") return await never();
        // clangd 14's way with what it advertises and lacks: MethodNotFound.
        if (mode === "refuse-hover") throw new ResponseError(-32601, "method not found");
        // rust-analyzer's answer while it re-analyses: ContentModified, twice, then the answer.
        if (mode === "content-modified" && ++contentModified <= 2) {
          throw new ResponseError(-32801, "content modified");
        }
        if (mode === "huge-response") {
          return { contents: { kind: "markdown", value: "h".repeat(HUGE_HOVER_CHARS) } };
        }
        return { contents: { kind: "markdown", value: "fake hover" } };
      case "shutdown":
        if (mode === "ignore-shutdown") return await never();
        return null;
      default:
        throw new ResponseError(-32601, `fake does not handle ${method}`);
    }
  });
  connection.listen();
}

if (import.meta.main) main(Deno.args);
