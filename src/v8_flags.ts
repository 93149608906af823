// Rationale: V8 grows each isolate's young generation up to 16 MiB per semi-space under load, and
// lspgate runs three isolates (the main thread, the watcher's Worker, one Worker per server), so a
// soak of 10,000 requests took lspgate from ~95 to ~240 MiB resident while its live heaps stayed
// under 15 MiB each. Capped at 1 MiB, the same soak levels off at ~125 MiB; each scavenge then
// copies what a request keeps alive (little), at no measurable cost per request. The flag must be
// on the command line: V8 sizes a heap when it creates the isolate.

/** The V8 flags lspgate is started with, wherever it prints or runs its own command line. */
export const V8_FLAGS: readonly string[] = ["--max-semi-space-size=1"];

/** V8_FLAGS as one `deno run` argument. */
export const V8_FLAGS_ARG = `--v8-flags=${V8_FLAGS.join(",")}`;
