// One watcher Worker for every workspace this process watches off its main thread (a daemon's
// roots, a library's sessions): a Deno Worker costs ~15 MiB, so a daemon serving 8 worktrees
// keeps one instead of 8.
//
// Rationale: the Worker exists so that a watch stuck on a FIFO can be abandoned (closing such a
// watcher blocks the thread that closes it; see watch_service.ts). A workspace that stops has its
// watch closed in the Worker; when the Worker does not say it closed within STOP_ACK_MS, it is
// terminated and a new one watches the other workspaces again, each told its changes were lost
// meanwhile (a rescan). Its code only watches (tests/security/client_wall_test.ts), so it reads
// with the process's own permission rather than one grant per root, which a Worker cannot gain
// after it starts.
import { WORKER_NAMES, workerUrl } from "../workers.ts";
import type { FromHost, FromWatcher, ToHost, ToWatcher } from "./watch_protocol.ts";

/** How long a stopping watch may take to close before its Worker is given up. */
export const STOP_ACK_MS = 2_000;

/** One workspace's watch in the shared Worker. */
export interface HostedWatch {
  post(message: ToWatcher): void;
  stop(): void;
}

interface Guest {
  onMessage: (message: FromWatcher) => void;
  /** The start message, sent again to a new Worker. */
  start?: ToWatcher;
}

let worker: Worker | undefined;
const guests = new Map<number, Guest>();
const closing = new Map<number, ReturnType<typeof setTimeout>>();
let nextId = 1;

/** Starts a watch in the shared Worker (started when none runs); its messages go to `onMessage`. */
export function hostWatch(onMessage: (message: FromWatcher) => void): HostedWatch {
  const id = nextId++;
  const guest: Guest = { onMessage };
  guests.set(id, guest);
  worker ??= spawn();
  return {
    post(message) {
      if (!guests.has(id)) return;
      if (message.type === "start") guest.start = message;
      send({ to: id, message });
    },
    stop() {
      if (!guests.delete(id)) return;
      if (guests.size === 0) {
        // Nobody else watches here: the Worker goes, with whatever it was doing.
        retire();
        return;
      }
      send({ to: id, message: { type: "stop" } });
      closing.set(id, setTimeout(() => replaceStuckWorker(), STOP_ACK_MS));
    },
  };
}

function send(message: ToHost) {
  worker?.postMessage(message);
}

function spawn(): Worker {
  const started = new Worker(workerUrl(), {
    type: "module",
    name: WORKER_NAMES.watcher,
    deno: {
      permissions: {
        read: "inherit",
        write: false,
        net: false,
        env: false,
        run: false,
        ffi: false,
        sys: false,
        import: false,
      },
    },
  } as WorkerOptions);
  started.onmessage = ({ data }: MessageEvent<FromHost>) => {
    if (data.message.type === "closed") {
      clearTimeout(closing.get(data.from));
      closing.delete(data.from);
    } else guests.get(data.from)?.onMessage(data.message);
  };
  started.onerror = (event) => {
    event.preventDefault();
    const message = `the watcher failed: ${event.message}`;
    for (const guest of guests.values()) guest.onMessage({ type: "failed", message });
    guests.clear();
    retire();
  };
  return started;
}

/** Ends the Worker and forgets every watch still closing in it. */
function retire() {
  worker?.terminate();
  worker = undefined;
  for (const timer of closing.values()) clearTimeout(timer);
  closing.clear();
}

/** A watch did not close in time (stuck on a FIFO): a new Worker watches the others again. */
function replaceStuckWorker() {
  retire();
  if (guests.size === 0) return;
  worker = spawn();
  for (const [id, guest] of guests) {
    if (guest.start) send({ to: id, message: guest.start });
    // What changed while the old Worker was stuck was not seen.
    guest.onMessage({ type: "rescan" });
  }
}
