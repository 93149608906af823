// Rationale: lspgate runs two V8 isolates or more (the main thread, the watcher's Worker, a parse
// Worker when needed, one Worker per server with `clientWorkers`), and V8 sizes each for throughput, not for a long-lived helper:
// - the young generation grows to 16 MiB a semi-space under load: a soak of 10,000 requests on the
//   TypeScript fixture took lspgate from ~95 to ~240 MiB resident (to ~280 MiB with 8 in flight)
//   while its live heaps stayed under 15 MiB each; capped at 1 MiB it levels off at ~125 MiB;
// - after a full collection the old generation may grow up to 4× what survived before the next
//   one: on rxjs (references through 61 files, 141 results) the main heap held ~40 MiB of which
//   ~13 MiB live, and RSS climbed to ~158 MiB; at 1.5× it levels off at ~128 MiB.
// Each scavenge and collection then does less work, more often; per-query latency and throughput
// were unchanged in tests/bench/memory.ts and on rxjs. The flags must be on the command line: V8
// sizes a heap when it creates the isolate (v8.setFlagsFromString at runtime changes nothing).

/** The V8 flags lspgate is started with, wherever it prints or runs its own command line. */
export const V8_FLAGS: readonly string[] = [
  "--max-semi-space-size=1",
  "--heap-growing-percent=50",
];

/** V8_FLAGS as one `deno run` argument. */
export const V8_FLAGS_ARG = `--v8-flags=${V8_FLAGS.join(",")}`;
