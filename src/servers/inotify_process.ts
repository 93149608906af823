// Starts lspgate's inotify watcher (inotify_watch.ts) as a process of its own, where it can run:
// Linux with glibc, and this thread allowed to run Deno. Elsewhere (musl; a grant that runs
// nothing; a refusal) it is undefined and the caller watches with Deno.watchFs.
//
// Where lspgate may read everywhere (the README's grant), one process watches every root this
// process serves (the daemon's many): ~11 MiB of its own each, saved for every root after the
// first. Its grant is then read of everything, as lspgate's own; where lspgate's read is narrowed,
// each root has a process granted that root (and its barrier) alone, as no child gets more than
// lspgate has.
import { readLines } from "../frontends/lines.ts";
import { libcPath } from "../lsp/sandbox/landlock.ts";
import { INOTIFY_ARG, type TaggedWatchEvent, type WatcherCommand } from "./inotify_watch.ts";
import { V8_FLAGS_ARG } from "../v8_flags.ts";
import { libcProgramScript } from "../libc_programs.ts";
import type { WatchEvent, WatchEventSource } from "./watch_protocol.ts";

/** A running watcher process (see WatchEventSource). */
export type InotifyProcess = WatchEventSource;

/** One watcher process and the roots it watches for this process. */
class WatcherHub {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #roots = new Map<number, (event: WatchEvent | undefined) => void>();
  #nextId = 1;
  #ended = false;

  constructor(args: string[], readonly onEmpty: () => void) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#read();
  }

  get pid(): number {
    return this.#child.pid;
  }

  get ended(): boolean {
    return this.#ended;
  }

  async #read() {
    for await (const line of readLines(this.#child.stdout)) {
      if (typeof line !== "string" || line === "") continue;
      let event: TaggedWatchEvent;
      try {
        event = JSON.parse(line);
      } catch {
        continue; // Not ours (a warning on stdout): skipped.
      }
      const { id, ...rest } = event;
      if (id === undefined) {
        // The process itself failed (its libc): every root hears it.
        for (const deliver of this.#roots.values()) deliver(rest);
      } else this.#roots.get(id)?.(rest);
    }
    this.#ended = true;
    for (const deliver of this.#roots.values()) {
      deliver({ kind: "failed", paths: [], message: "the watcher process ended", ended: true });
      deliver(undefined);
    }
    this.#roots.clear();
  }

  #send(command: WatcherCommand) {
    this.#writer.write(new TextEncoder().encode(JSON.stringify(command) + "\n")).catch(() => {});
  }

  /** Watches `root`: its events, in the kernel's order, and how to stop watching it. */
  add(root: string, barrier: string | undefined): InotifyProcess {
    const id = this.#nextId++;
    const queue: WatchEvent[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    this.#roots.set(id, (event) => {
      if (event) queue.push(event);
      else closed = true;
      wake?.();
    });
    this.#send({ add: id, root, ...(barrier ? { barrier } : {}) });
    const events = async function* () {
      for (;;) {
        while (queue.length) yield queue.shift()!;
        if (closed) return;
        await new Promise<void>((resolve) => wake = resolve);
        wake = undefined;
      }
    };
    return {
      pid: this.pid,
      shared: () => this.#roots.size > 1,
      events: events(),
      stop: () => {
        const deliver = this.#roots.get(id);
        if (!deliver) return;
        this.#roots.delete(id);
        deliver(undefined);
        this.#send({ remove: id });
        if (!this.#roots.size) this.onEmpty();
      },
    };
  }

  /** Ends the process (its watches go with it). */
  end() {
    this.#ended = true;
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Exited already.
    }
    this.#writer.close().catch(() => {});
  }
}

/** The one watcher process for every root, where lspgate may read everywhere. */
let shared: WatcherHub | undefined;

/** The watcher process for `root` (and `barrier`), once its watches are set; else undefined. */
export async function startInotify(
  root: string,
  barrier: string | undefined,
): Promise<InotifyProcess | undefined> {
  if (Deno.build.os !== "linux") return undefined;
  let readsAll: boolean;
  try {
    const run = Deno.permissions.querySync({ name: "run", command: Deno.execPath() });
    if (run.state !== "granted") return undefined;
    readsAll = Deno.permissions.querySync({ name: "read" }).state === "granted";
  } catch {
    return undefined;
  }
  const libc = libcPath();
  if (libc === undefined || libc.includes(",")) return undefined;
  // Deno's grants are comma-separated lists: such a path cannot be granted on its own (the shared
  // process is told its roots on stdin).
  if (!readsAll && (root.includes(",") || barrier?.includes(","))) return undefined;
  let hub: WatcherHub;
  try {
    if (readsAll) {
      if (!shared || shared.ended) {
        const made: WatcherHub = new WatcherHub(inotifyWatchArgs(libc), () => {
          // Its last root stopped: a process for no root would only hold memory.
          if (shared === made) shared = undefined;
          made.end();
        });
        shared = made;
      }
      hub = shared;
    } else {
      const made: WatcherHub = new WatcherHub(
        inotifyWatchArgs(libc, barrier ? [root, barrier] : [root]),
        () => made.end(),
      );
      hub = made;
    }
  } catch {
    return undefined;
  }
  const watcher = hub.add(root, barrier);
  const events = watcher.events[Symbol.asyncIterator]();
  const first = await events.next();
  if (first.done || first.value.kind !== "watching") {
    // Said (the inotify watch limit, say); the caller's Worker may do no better, and says so too.
    if (!first.done && first.value.message) {
      console.error(`lspgate: the watcher process for ${root}: ${first.value.message}`);
    }
    watcher.stop();
    return undefined;
  }
  return { ...watcher, events: { [Symbol.asyncIterator]: () => events } };
}

/**
 * `deno run` arguments that start the watcher with `--allow-ffi` on `libc` and `--allow-read` on
 * `readable` (every path when undefined). From source it is inotify_watch.ts; from the `deno
 * bundle` file, where every module has the bundle's URL, the bundle's companion beside it, or the
 * bundle itself, with {@link INOTIFY_ARG}.
 */
export function inotifyWatchArgs(libc: string, readable?: string[]): string[] {
  const here = new URL(import.meta.url);
  const source = here.pathname.endsWith("/servers/inotify_process.ts")
    ? new URL("./inotify_watch.ts", here)
    : undefined;
  const script = libcProgramScript(here, source, INOTIFY_ARG);
  // No config: it runs in no project of its own; no prompt: nothing may ask the user. lspgate's
  // own V8 flags, so that it shares lspgate's code cache of the bundle (see launcherArgs).
  return [
    "run",
    "--no-config",
    "--no-prompt",
    "--quiet",
    V8_FLAGS_ARG,
    `--allow-ffi=${libc}`,
    readable ? `--allow-read=${readable.join(",")}` : "--allow-read",
    ...script,
    libc,
  ];
}
