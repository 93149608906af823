// The environment lspgate starts its daemon with, beside its own.
//
// Rationale: glibc's malloc gives a thread that finds the arenas in use one of its own, up to 8
// per core, and keeps each one's memory after the thread ends. Deno's blocking pool (async file
// reads, stats) starts threads under load and ends them after 10 s idle, so each burst leaves
// arenas behind. The daemon is the longest-lived lspgate process: it runs with MALLOC_ARENA_MAX=2
// (10,000 requests through it on the TypeScript fixture, 2 cores: 91.3 → 89.9 MiB 30 s after;
// more cores allow more arenas, 8 each). glibc reads the variable before any code of lspgate runs,
// so only the process that starts the daemon can set it; `deno install`'s script has no place.
import { env } from "../fs.ts";

/** glibc's cap on malloc arenas for the daemon. */
export const DAEMON_MALLOC_ARENA_MAX = "2";

/** Names the variables lspgate added to the daemon's environment for the daemon alone. */
export const ADDED_ENV = "LSPGATE_DAEMON_ADDED_ENV";

/**
 * What the daemon's environment adds to this process's: the malloc arena cap, unless the user set
 * one (MALLOC_ARENA_MAX, or glibc.malloc.arena_max in GLIBC_TUNABLES), whose choice stands.
 */
export function daemonEnvironment(): Record<string, string> {
  const tunables = env("GLIBC_TUNABLES") ?? "";
  if (env("MALLOC_ARENA_MAX") !== undefined || tunables.includes("glibc.malloc.arena_max")) {
    return {};
  }
  return { MALLOC_ARENA_MAX: DAEMON_MALLOC_ARENA_MAX, [ADDED_ENV]: "MALLOC_ARENA_MAX" };
}

/**
 * Removes from this process's environment what daemonEnvironment() added (glibc has read it by
 * now), so the servers the daemon starts without a sandbox inherit the user's environment as they
 * would from any lspgate, not lspgate's malloc setting. A variable the user set is kept.
 */
export function forgetDaemonEnvironment(): void {
  const added = env(ADDED_ENV);
  if (added === undefined) return;
  try {
    for (const name of added.split(",")) if (name === "MALLOC_ARENA_MAX") Deno.env.delete(name);
    Deno.env.delete(ADDED_ENV);
  } catch {
    // Without --allow-env the servers inherit it: harmless, a memory setting.
  }
}
