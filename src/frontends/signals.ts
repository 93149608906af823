// How a front end on the process's own stdio hears that its client wants it gone without closing
// stdin: SIGTERM, what an agent sends when the end of input was not enough (or instead of it), or
// SIGINT, which Claude Code sends its MCP servers (a helper's find: each left its watcher barrier
// folder behind in the runtime folder, since Deno's default for SIGINT skips every cleanup).

const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/** Calls `fn` on SIGTERM or SIGINT until the returned function is called (a no-op where none). */
export function onStopSignal(fn: () => void): () => void {
  const listening: Deno.Signal[] = [];
  for (const signal of STOP_SIGNALS) {
    try {
      Deno.addSignalListener(signal, fn);
      listening.push(signal);
    } catch {
      // Windows has no SIGTERM to listen for.
    }
  }
  return () => listening.forEach((signal) => Deno.removeSignalListener(signal, fn));
}
