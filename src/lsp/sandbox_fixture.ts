// What the sandbox tests share: bubblewrap required unless opted out, temp folders, and where
// programs on PATH really live.
import assert from "node:assert/strict";
import { bwrapAvailable, bwrapUnavailableReason } from "./sandbox.ts";

// CI installs bubblewrap, so a missing one fails these tests loudly; a machine
// that cannot have it opts out with LSPGATE_NO_BWRAP=1.
export const NO_BWRAP = Deno.env.get("LSPGATE_NO_BWRAP") === "1";

/** Fails, saying how to get it, where bubblewrap cannot run. */
export async function requireBwrap(): Promise<void> {
  if (await bwrapAvailable()) return;
  assert.fail(
    `bubblewrap is not usable here (${await bwrapUnavailableReason()}). ` +
      `Install it (apt-get install bubblewrap) or set LSPGATE_NO_BWRAP=1 to skip the sandbox tests.`,
  );
}

/** A fresh temp folder, by its real path. */
export async function tempDir(prefix: string): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix }));
}

/** Where a globally installed npm package really lives (bin links resolved). */
export function npmPackageDir(bin: string, name: string): string {
  const real = Deno.realPathSync(whichSync(bin));
  const marker = `/node_modules/${name}/`;
  const at = real.lastIndexOf(marker);
  assert.ok(at >= 0, `${bin} resolves to ${real}, not into node_modules/${name}`);
  return real.slice(0, at + marker.length - 1);
}

/** The first `bin` on PATH. */
export function whichSync(bin: string): string {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      const path = `${dir}/${bin}`;
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // Not in this PATH entry.
    }
  }
  throw new Error(`${bin} is not on PATH`);
}

/** The folder of `path`. */
export function dirname(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}
