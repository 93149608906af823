/// <reference lib="deno.worker" />
// The watcher Worker (started through worker_entry.ts): the watches of every workspace this
// process watches off its main thread, one watch service each (watch_host.ts says why one Worker).
import { type WatchService, watchService } from "./watch_service.ts";
import type { FromHost, ToHost } from "./watch_protocol.ts";

/** Serves the workspace watches to the thread that started this Worker (see watch_host.ts). */
export function serveWatchWorker(): void {
  const services = new Map<number, WatchService>();
  self.onmessage = ({ data }: MessageEvent<ToHost>) => {
    const { to, message } = data;
    let service = services.get(to);
    if (!service) {
      if (message.type !== "start") return;
      service = watchService((reply) => self.postMessage({ from: to, message: reply } as FromHost));
      services.set(to, service);
    }
    if (message.type === "stop") services.delete(to);
    service.receive(message);
  };
}
