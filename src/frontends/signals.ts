// How a front end on the process's own stdio hears that its client wants it gone without closing
// stdin: SIGTERM, what an agent sends when the end of input was not enough (or instead of it).

/** Calls `fn` on SIGTERM until the returned function is called (a no-op where there is none). */
export function onSigterm(fn: () => void): () => void {
  try {
    Deno.addSignalListener("SIGTERM", fn);
  } catch {
    // Windows has no SIGTERM to listen for.
    return () => {};
  }
  return () => Deno.removeSignalListener("SIGTERM", fn);
}
