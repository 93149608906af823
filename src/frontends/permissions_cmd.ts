import type { GlobalFlags } from "./main.ts";

/** Prints the deno run flags this workspace needs (not built yet). */
export function printPermissions(_flags: GlobalFlags): Promise<number> {
  console.error("lspgate permissions: not available yet");
  return Promise.resolve(2);
}
