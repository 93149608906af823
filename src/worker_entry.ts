/// <reference lib="deno.worker" />
// The one entry point of lspgate's Workers; the Worker's name says which it is. In a `deno bundle`
// artifact the bundle itself is the entry (mod.ts calls serveWorker() when it finds itself in a
// Worker), so one file is all that ships. `deno task bundle` bundles this file rather than mod.ts:
// run as the program, it loads the CLI with a dynamic import, which a bundle keeps lazy, so each
// Worker evaluates its own service's modules and not the whole program (zod, the actions, …); and
// minified, since every isolate keeps the bundle's source, which a single non-ASCII character in
// a comment made a two-byte string (measured: 128 → 95 MiB at rest with one server).
//
// Rationale: each Worker loads only the modules of the service it runs. A watcher that loaded the
// LSP client too (and with it vscode-languageserver-protocol and Deno's npm support) would carry
// it in its own isolate for nothing.
import { inWorker, WORKER_NAMES } from "./workers.ts";

import { launch, LAUNCH_ARG } from "./lsp/sandbox/landlock_launcher.ts";
import { INOTIFY_ARG, watchWithInotify } from "./servers/inotify_watch.ts";

export { inWorker, WORKER_NAMES, workerUrl } from "./workers.ts";

/** Starts the service this Worker was created for, loading only that service's modules. */
export async function serveWorker(): Promise<void> {
  // Messages that arrive while the service's modules load are handed to it once it listens.
  const early: MessageEvent[] = [];
  self.onmessage = (event) => early.push(event);
  if (self.name.startsWith(WORKER_NAMES.watcher)) {
    const { serveWatchWorker } = await import("./servers/watch_worker.ts");
    serveWatchWorker();
  } else if (self.name.startsWith(WORKER_NAMES.syntax)) {
    const { serveSyntaxWorker } = await import("./syntax/pool_worker.ts");
    serveSyntaxWorker();
  } else {
    const { serveClientWorker } = await import("./lsp/client_worker.ts");
    serveClientWorker();
  }
  for (const event of early) self.dispatchEvent(new MessageEvent("message", { data: event.data }));
}

if (import.meta.main) {
  if (inWorker()) serveWorker();
  // The bundle is also the Landlock launcher (src/lsp/sandbox/landlock.ts starts it so).
  else if (Deno.args[0] === LAUNCH_ARG) launch(Deno.args.slice(1));
  // And lspgate's inotify watcher (src/servers/watch_service.ts starts it so).
  else if (Deno.args[0] === INOTIFY_ARG) watchWithInotify(Deno.args.slice(1));
  // Not awaited at the top level: main.ts's own imports reach this module again, and a bundle
  // would wait on this module's evaluation forever.
  else {import("./frontends/main.ts").then(async ({ main }) =>
      Deno.exit(await main(Deno.args, { ownsProcess: true }))
    );}
}
