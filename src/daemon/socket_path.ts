import { join } from "node:path";
import { LspGateError } from "../errors.ts";
import { runtimeFolderPath } from "../fs.ts";

/**
 * The private folder daemons' sockets live in: `$XDG_RUNTIME_DIR/lspgate`, else
 * `$TMPDIR/lspgate-<uid>` (default `/tmp`). Created mode 0700.
 *
 * Rationale: the folder's mode is what keeps other OS users out (Deno cannot read a peer's
 * credentials), so a folder someone else created, or one open to others, is refused, never used.
 */
export async function socketFolder(): Promise<string> {
  const folder = runtimeFolderPath();
  try {
    await Deno.mkdir(folder, { mode: 0o700 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const info = await Deno.lstat(folder);
  const uid = Deno.uid();
  if (!info.isDirectory || (uid !== null && info.uid !== uid) || ((info.mode ?? 0) & 0o077)) {
    throw new LspGateError(
      "PERMISSION_DENIED",
      `The daemon folder ${folder} is not a private folder of this user (mode 0700, owned by ` +
        `uid ${uid}); remove it or set XDG_RUNTIME_DIR.`,
      { path: folder },
    );
  }
  return folder;
}

/** The socket of the daemon for one (real root, config): its name is a hash of both. */
export async function socketPathFor(realRoot: string, configKey: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`${realRoot}\0${configKey}`),
  );
  const hex = [...new Uint8Array(digest)].slice(0, 12)
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  return join(await socketFolder(), `${hex}.sock`);
}
