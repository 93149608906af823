/// <reference lib="deno.worker" />
// The workspace watcher's Worker (started through worker_entry.ts), with read access to the root
// (and the barrier folder) only; watch_service.ts says why a Worker.
import { watchService } from "./watch_service.ts";
import type { ToWatcher } from "./watch_protocol.ts";

/** Serves the workspace watcher to the thread that started this Worker (see watcher.ts). */
export function serveWatchWorker(): void {
  // Where the Worker watches, lspgate's watcher process could not start: the tree may hold links
  // out of the root (the main thread's watch takes only trees without links: watch_places.ts).
  const service = watchService((message) => self.postMessage(message), undefined, {
    guardLinks: true,
  });
  self.onmessage = (event: MessageEvent<ToWatcher>) => service.receive(event.data);
}
