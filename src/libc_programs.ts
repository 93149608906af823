// Where lspgate's two programs that load libc run from: the Landlock launcher (a server's start,
// and the probe at each lspgate start) and the inotify watcher process. From source, each is its
// own small module. From the bundle, the companion file `deno task bundle` writes beside it
// (dist/lspgate_libc.js, built from src/libc_entry.ts) where it is there, else the bundle itself.
//
// Rationale: Deno loads the 1.3 MB bundle in ~70 ms with its code cache and ~140 without (V8
// compiles it anew; inside sandbox-runtime Deno's cache folder is read-only, so always without),
// the companion in ~38 ms, and under Landlock each server's start and each lspgate start wait for
// such a load. The companion is shipped and trusted as the bundle is (the same folder); a bundle
// copied alone still runs both programs from itself.
import { fileURLToPath } from "./file_url.ts";

/** The companion's file name, beside the bundle. */
export const LIBC_COMPANION = "lspgate_libc.js";

/** The companion beside the bundle was found to be another version's (see refuseCompanion). */
let companionRefused = false;

/**
 * Stops using the companion in this process: Landlock's probe found it from another lspgate
 * version (a bundle copied over an older `dist/`), whose launcher could ignore what this version's
 * plan asks. True when it was in use until now.
 */
export function refuseCompanion(): boolean {
  const was = !companionRefused;
  companionRefused = true;
  return was;
}

/**
 * The script argument(s) of `deno run` for one libc program: `source` (its own module) when the
 * caller runs from source; else the companion beside the bundle `caller`, or the bundle itself,
 * followed by `arg`, which says which program to be.
 */
export function libcProgramScript(caller: URL, source: URL | undefined, arg: string): string[] {
  if (source) return [fileURLToPath(source)];
  if (caller.protocol !== "file:") return [caller.href, arg];
  const companion = new URL(`./${LIBC_COMPANION}`, caller);
  try {
    if (companionRefused) throw new Error("another version's");
    if (Deno.statSync(companion).isFile) return [fileURLToPath(companion), arg];
  } catch {
    // None beside this bundle (not readable here, or refused): the bundle is the program too.
  }
  return [fileURLToPath(caller), arg];
}
