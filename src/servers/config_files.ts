// A server reads its project's config files at its root as it starts (pyrightconfig.json,
// pyproject.toml, biome.json, tsconfig.json…). One that is a FIFO (or a socket, a device) blocks
// that read for good: pyright and Biome then answered nothing but timeouts, 15 s each (a helper's
// find). Such a server is not started, and the error names the file.
import { join } from "../posix_path.ts";
import { LspGateError } from "../errors.ts";
import type { Adapter } from "./adapter.ts";

/** Throws SERVER_START_FAILED when a config file `adapter`'s server reads at `root` is not a file. */
export function refuseSpecialConfigs(adapter: Adapter, root: string): void {
  const names = new Set([...adapter.rootMarkers, ...(adapter.symbolIndex?.configs ?? [])]);
  for (const name of names) {
    if (name.includes("*")) continue;
    let info: Deno.FileInfo;
    try {
      // In the thread: a stat opens nothing (a FIFO is seen, not waited on).
      info = Deno.statSync(join(root, name));
    } catch {
      continue;
    }
    if (info.isFile || info.isDirectory) continue;
    const kind = info.isFifo ? "a FIFO" : info.isSocket ? "a socket" : "not a regular file";
    throw new LspGateError(
      "SERVER_START_FAILED",
      `${adapter.id} is not started: its config ${name} is ${kind}, which it would wait on ` +
        "forever as it reads it",
      { server: adapter.id, file: name },
    );
  }
}
