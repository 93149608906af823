/// <reference lib="deno.worker" />
// The workspace watcher's Worker (started through worker_entry.ts), with read access to the root
// (and the barrier folder) only; watch_service.ts says why a Worker.
import { watchService } from "./watch_service.ts";
import type { ToWatcher } from "./watch_protocol.ts";

/** Serves the workspace watcher to the thread that started this Worker (see watcher.ts). */
export function serveWatchWorker(): void {
  const service = watchService((message) => self.postMessage(message));
  self.onmessage = (event: MessageEvent<ToWatcher>) => service.receive(event.data);
}
