// Starts lspgate's inotify watcher (inotify_watch.ts) as a process of its own, where it can run:
// Linux with glibc, and this thread allowed to run Deno. Elsewhere (musl; a grant that runs
// nothing; a refusal) it is undefined and the caller watches with Deno.watchFs.
import { fileURLToPath } from "node:url";
import { readLines } from "../frontends/lines.ts";
import { libcPath } from "../lsp/sandbox/landlock.ts";
import { INOTIFY_ARG } from "./inotify_watch.ts";
import type { WatchEvent, WatchEventSource } from "./watch_protocol.ts";

/** A running watcher process (see WatchEventSource). */
export type InotifyProcess = WatchEventSource;

/** The watcher process for `root` (and `barrier`), once its watches are set; else undefined. */
export async function startInotify(
  root: string,
  barrier: string | undefined,
): Promise<InotifyProcess | undefined> {
  if (Deno.build.os !== "linux") return undefined;
  try {
    const run = Deno.permissions.querySync({ name: "run", command: Deno.execPath() });
    if (run.state !== "granted") return undefined;
  } catch {
    return undefined;
  }
  const libc = libcPath();
  // Deno's grants are comma-separated lists: such a path cannot be granted.
  if (libc === undefined || root.includes(",") || barrier?.includes(",")) return undefined;
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(Deno.execPath(), {
      args: inotifyWatchArgs(libc, root, barrier),
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
  } catch {
    return undefined;
  }
  const stop = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Exited already.
    }
    child.stdin.close().catch(() => {});
  };
  const events = eventsOf(child.stdout)[Symbol.asyncIterator]();
  const first = await events.next();
  if (first.done || first.value.kind !== "watching") {
    // Said (the inotify watch limit, say); the caller's Worker may do no better, and says so too.
    if (!first.done && first.value.message) {
      console.error(`lspgate: the watcher process for ${root}: ${first.value.message}`);
    }
    stop();
    await child.status;
    return undefined;
  }
  return { pid: child.pid, events: { [Symbol.asyncIterator]: () => events }, stop };
}

async function* eventsOf(stdout: ReadableStream<Uint8Array>): AsyncGenerator<WatchEvent> {
  for await (const line of readLines(stdout)) {
    if (typeof line !== "string" || line === "") continue;
    try {
      yield JSON.parse(line) as WatchEvent;
    } catch {
      // Not ours (a warning on stdout): skipped.
    }
  }
  yield { kind: "failed", paths: [], message: "the watcher process ended" };
}

/**
 * `deno run` arguments that start the watcher with `--allow-ffi` on `libc` and `--allow-read` on
 * `root` (and `barrier`). From source it is inotify_watch.ts; from the `deno bundle` file, where
 * every module has the bundle's URL, it is the bundle itself with {@link INOTIFY_ARG}.
 */
export function inotifyWatchArgs(libc: string, root: string, barrier?: string): string[] {
  const here = new URL(import.meta.url);
  const script = here.pathname.endsWith("/servers/inotify_process.ts")
    ? [fileURLToPath(new URL("./inotify_watch.ts", here))]
    : [here.protocol === "file:" ? fileURLToPath(here) : here.href, INOTIFY_ARG];
  // No config: it runs in no project of its own; no prompt: nothing may ask the user.
  return [
    "run",
    "--no-config",
    "--no-prompt",
    "--quiet",
    `--allow-ffi=${libc}`,
    `--allow-read=${barrier ? `${root},${barrier}` : root}`,
    ...script,
    libc,
    root,
    ...(barrier ? [barrier] : []),
  ];
}
