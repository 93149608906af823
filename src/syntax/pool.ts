// Syntax work runs in parse Workers, never on the main thread: a crafted file (60,000 unclosed
// `{`, a megabyte of `[`) takes a parser seconds to minutes, and on the main thread it held every
// other request, `status` and EOF included (issue 18). A job has a deadline: the Worker stops its
// own parse or query there, and a Worker that has not answered shortly after is terminated.
//
// Rationale: at most two Workers, started when a job comes and ended after a quiet spell (each
// isolate costs memory; see README, Performance), and ended after a job that grew the parsers'
// WebAssembly memory, which never shrinks. Deno's Workers take no heap limits (node:worker_threads'
// resourceLimits stop a Worker without telling its parent), so memory is bounded by the
// runtime's memory cap (loader.ts), the deadline, and retiring big Workers.
import { LspGateError } from "../errors.ts";
import { readingOnly, WORKER_NAMES, workerUrl } from "../workers.ts";
import { languageName } from "./languages.ts";
import { SyntaxUnavailable } from "./loader.ts";
import type { FromSyntaxWorker, SyntaxAnswer, SyntaxJob, ToSyntaxWorker } from "./pool_protocol.ts";
import type { SyntaxStage } from "./types.ts";

/** How long a syntax job may take, and who may cancel it. */
export interface SyntaxRunOptions {
  /** The job's whole time, waiting for a Worker included (default 5 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The file, for messages. */
  file?: string;
  /** Aborts when the caller's input has ended (EOF): the job then parses at most 1 s more. */
  ending?: AbortSignal;
}

const MAX_WORKERS = 2;
const DEFAULT_TIMEOUT_MS = 5_000;
/** A Worker quiet this long is ended. */
const IDLE_MS = 10_000;
/** A Worker whose parsers grew their memory past this is ended after its job. */
const RETIRE_BYTES = 64 * 1024 * 1024;
/** A job running this long is slow: the next job gets a Worker of its own. */
const SLOW_MS = 100;
/** How long past a job's deadline its Worker may take to stop on its own before it is ended. */
const GRACE_MS = 250;
/**
 * How long a job may go on parsing once its caller's input has ended: EOF must exit promptly
 * (issue 18), yet a request piped in just before EOF still gets its answer. Only parsing is cut:
 * waiting for a Worker and loading a grammar do not grow with a crafted input.
 */
const ENDING_MS = 1_000;
/**
 * How long after the end of its caller's input any job may still take, waiting included: crafted
 * files queued behind one another would otherwise each get ENDING_MS once they start, and EOF
 * would take (files ÷ Workers) seconds.
 */
const ENDED_MS = 1_500;

interface Job {
  id: number;
  job: SyntaxJob;
  options: SyntaxRunOptions;
  deadline: number;
  submitted: number;
  resolve(answer: SyntaxAnswer): void;
  reject(error: Error): void;
  /** The stage reached and when each began (ms after submission). */
  stages: [SyntaxStage, number][];
  slot?: Slot;
  /** When its Worker began parsing (after loading the grammar). */
  parsing?: number;
  timer?: ReturnType<typeof setTimeout>;
  onAbort?: () => void;
  /** The caller's input ended: parsing is cut to ENDING_MS. */
  ending?: boolean;
  onEnding?: () => void;
  /** Its deadline was brought forward by the end of input: by how much it had from then. */
  cut?: number;
}

interface Slot {
  worker: Worker;
  job?: Job;
  idleTimer?: ReturnType<typeof setTimeout>;
}

/** The parse Workers of this process, shared by all its sessions. */
export class SyntaxPool {
  #slots: Slot[] = [];
  #queue: Job[] = [];
  #nextId = 1;
  #slowTimer?: ReturnType<typeof setTimeout>;

  /** Runs `job` in a parse Worker; TIMEOUT past its deadline, CANCELLED when its signal aborts. */
  run(job: SyntaxJob, options: SyntaxRunOptions = {}): Promise<SyntaxAnswer> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return new Promise<SyntaxAnswer>((resolve, reject) => {
      const submitted = performance.now();
      const entry: Job = {
        id: this.#nextId++,
        job,
        options: { ...options, timeoutMs },
        submitted,
        deadline: submitted + timeoutMs,
        resolve,
        reject,
        stages: [],
      };
      if (options.signal?.aborted) return reject(cancelled(entry));
      entry.onAbort = () => this.#fail(entry, cancelled(entry));
      options.signal?.addEventListener("abort", entry.onAbort, { once: true });
      entry.timer = setTimeout(() => this.#fail(entry, timedOut(entry)), timeoutMs + GRACE_MS);
      if (options.ending) {
        entry.onEnding = () => this.#hurry(entry);
        if (options.ending.aborted) this.#hurry(entry);
        else options.ending.addEventListener("abort", entry.onEnding, { once: true });
      }
      this.#queue.push(entry);
      this.#pump();
    });
  }

  /** How many parse Workers are running now. */
  get workers(): number {
    return this.#slots.length;
  }

  /** Ends every Worker; jobs still waiting or running fail CANCELLED. */
  close(): void {
    const jobs = [...this.#queue, ...this.#slots.flatMap((s) => s.job ? [s.job] : [])];
    this.#queue = [];
    clearTimeout(this.#slowTimer);
    for (const slot of [...this.#slots]) this.#end(slot);
    for (const entry of jobs) this.#settle(entry, () => entry.reject(cancelled(entry)));
  }

  #pump(): void {
    clearTimeout(this.#slowTimer);
    while (this.#queue.length) {
      let slot = this.#slots.find((s) => !s.job);
      if (!slot && this.#slots.length < MAX_WORKERS) {
        // A second Worker only beside a slow job: quick jobs (a few ms) queue for the one there
        // is, so a burst of queries does not pay a second isolate and grammar.
        // A Worker still loading its grammar is not slow: a second would load one too.
        const since = Math.min(...this.#slots.map((s) => s.job!.parsing ?? Infinity));
        const slowIn = this.#slots.length === 0 ? 0 : since + SLOW_MS - performance.now();
        if (slowIn <= 0) {
          try {
            slot = this.#start();
          } catch (error) {
            // No Worker can start here (e.g. Deno without --unstable-worker-options): the
            // parsers are unavailable, said as such, not an internal error.
            const reason = error instanceof Error ? error.message : String(error);
            for (const entry of this.#queue.splice(0)) {
              this.#settle(entry, () => entry.reject(new SyntaxUnavailable(reason)));
            }
            return;
          }
        } else {
          // Asked again when a job starts parsing (#heard) or turns slow.
          if (slowIn !== Infinity) this.#slowTimer = setTimeout(() => this.#pump(), slowIn);
          return;
        }
      }
      if (!slot) return;
      const entry = this.#queue.shift()!;
      clearTimeout(slot.idleTimer);
      slot.job = entry;
      entry.slot = slot;
      const message: ToSyntaxWorker = {
        id: entry.id,
        job: entry.job,
        budgetMs: Math.max(0, entry.deadline - performance.now()),
      };
      slot.worker.postMessage(message);
    }
  }

  #start(): Slot {
    // The parsers need no permission but one: the text comes in a message, the grammars are
    // WebAssembly modules compiled from Deno's npm cache (no file read) or, for the bundle, read
    // from the parsers shipped beside it (that folder alone).
    const url = syntaxWorkerUrl();
    const shipped = url.pathname.endsWith(".ts") ? undefined : new URL("./parsers/", url);
    const worker = new Worker(url, {
      type: "module",
      name: WORKER_NAMES.syntax,
      deno: {
        permissions: shipped ? readingOnly([shipped]) : "none",
      },
    } as WorkerOptions);
    const slot: Slot = { worker };
    worker.onmessage = (event: MessageEvent<FromSyntaxWorker>) => this.#heard(slot, event.data);
    worker.onerror = (event) => {
      // Not the main thread's error: the job that was running fails, the Worker is replaced.
      event.preventDefault();
      const entry = slot.job;
      this.#end(slot);
      if (entry) {
        this.#fail(entry, new SyntaxUnavailable(`the parser failed: ${event.message}`));
      }
      this.#pump();
    };
    this.#slots.push(slot);
    return slot;
  }

  #heard(slot: Slot, message: FromSyntaxWorker): void {
    const entry = slot.job;
    if (!entry || entry.id !== message.id) return;
    if ("reached" in message) {
      entry.stages.push([message.reached, performance.now() - entry.submitted]);
      if (message.reached === "parse" || message.reached === "rename") {
        entry.parsing = performance.now();
        if (entry.ending) this.#cut(entry, ENDING_MS);
        if (this.#queue.length) this.#pump();
      }
      return;
    }
    slot.job = undefined;
    entry.slot = undefined;
    if ("answer" in message) this.#settle(entry, () => entry.resolve(message.answer));
    else if (message.failure === "timeout") {
      if (message.stage && message.stage !== entry.stages.at(-1)?.[0]) {
        entry.stages.push([message.stage, performance.now() - entry.submitted]);
      }
      this.#settle(entry, () => entry.reject(timedOut(entry)));
    } else this.#settle(entry, () => entry.reject(new SyntaxUnavailable(message.message)));
    if (message.wasmBytes > RETIRE_BYTES) this.#end(slot);
    else this.#rest(slot);
    this.#pump();
  }

  /** Fails a job from outside: waiting, it leaves the queue; running, its Worker is ended. */
  #fail(entry: Job, error: Error): void {
    const waiting = this.#queue.indexOf(entry);
    if (waiting !== -1) this.#queue.splice(waiting, 1);
    if (entry.slot) {
      const slot = entry.slot;
      slot.job = undefined;
      entry.slot = undefined;
      // A Worker busy in WebAssembly hears no message: only ending it stops the parse.
      this.#end(slot);
    }
    this.#settle(entry, () => entry.reject(error));
    this.#pump();
  }

  /**
   * The caller's input ended: a job already parsing has ENDING_MS more, one to come from then, and
   * none more than ENDED_MS in all.
   */
  #hurry(entry: Job): void {
    entry.ending = true;
    this.#cut(entry, ENDED_MS);
    if (entry.parsing !== undefined) this.#cut(entry, ENDING_MS);
  }

  /** Brings the job's deadline forward to `ms` from now, where that is sooner. */
  #cut(entry: Job, ms: number): void {
    const by = performance.now() + ms;
    if (by >= entry.deadline) return;
    entry.deadline = by;
    entry.cut = ms;
    clearTimeout(entry.timer);
    // The Worker was given the old budget: ending it is what stops the parse.
    entry.timer = setTimeout(() => this.#fail(entry, timedOut(entry)), ms);
  }

  #settle(entry: Job, settle: () => void): void {
    clearTimeout(entry.timer);
    if (entry.onAbort) entry.options.signal?.removeEventListener("abort", entry.onAbort);
    if (entry.onEnding) entry.options.ending?.removeEventListener("abort", entry.onEnding);
    settle();
  }

  #rest(slot: Slot): void {
    const timer = setTimeout(() => this.#end(slot), IDLE_MS);
    // A quiet Worker keeps no process alive (a test, a hook about to exit).
    Deno.unrefTimer(timer);
    slot.idleTimer = timer;
  }

  #end(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    slot.worker.terminate();
    this.#slots = this.#slots.filter((s) => s !== slot);
  }
}

/** The parse Worker's module: its own entry from source, the bundle itself when bundled. */
function syntaxWorkerUrl(): URL {
  const here = new URL(import.meta.url);
  return here.pathname.endsWith("/syntax/pool.ts")
    ? new URL("./worker_main.ts", here)
    : workerUrl();
}

/** The pool every syntax answer of this process goes through. */
export const syntaxPool: SyntaxPool = new SyntaxPool();

function timedOut(entry: Job): LspGateError {
  const { job, options } = entry;
  const what = `${options.file ?? "the file"}'s ${languageName(job.language)} syntax`;
  const when = entry.cut !== undefined
    ? `within ${entry.cut} ms of the end of input (EOF cuts a parse short)`
    : `within ${options.timeoutMs} ms`;
  return new LspGateError(
    "TIMEOUT",
    `${what} was not ready ${when}: ${progress(entry)}.`,
    {
      timeoutMs: options.timeoutMs,
      ...(entry.cut !== undefined ? { endOfInput: true } : {}),
      stage: entry.stages.at(-1)?.[0] ?? "waiting",
      ...(options.file ? { file: options.file } : {}),
    },
  );
}

/** What is known of a job that ran out of time: how far it got, and when. */
function progress(entry: Job): string {
  const started = new Map(entry.stages);
  const last = entry.stages.at(-1)?.[0];
  const ms = (stage: SyntaxStage) => Math.round(started.get(stage) ?? 0);
  switch (last) {
    case undefined:
      return "it waited for a free parser the whole time";
    case "load":
      return "the grammar was still loading";
    case "parse":
    case "rename":
      return `the parser had not finished after ${
        Math.round(performance.now() - entry.submitted - ms(last))
      } ms (a file nested this deep is not analysed)`;
    case "outline":
      return `the file parsed in ${ms("outline") - ms("parse")} ms, but listing its symbols ` +
        "had not finished (a file nested this deep has no outline)";
    case "errors":
      return "its outline was built, but listing its parse errors had not finished";
  }
}

function cancelled(entry: Job): LspGateError {
  return new LspGateError(
    "CANCELLED",
    `the syntax analysis of ${entry.options.file ?? "the file"} was cancelled`,
  );
}
