import { daemonSocketPath } from "../fs.ts";
import { ensureRuntimeFolder } from "../runtime_folder.ts";

/**
 * The private folder the daemon's socket lives in (lspgate's runtime folder, see
 * ensureRuntimeFolder): created mode 0700, refused when it is not this user's.
 *
 * Rationale: the folder's mode is what keeps other OS users out (Deno cannot read a peer's
 * credentials), so a folder someone else created, or one open to others, is refused, never used.
 */
export async function socketFolder(): Promise<string> {
  return await ensureRuntimeFolder();
}

/**
 * The socket of this user's one daemon, `<runtime folder>/daemon.sock`: one fixed path, so a
 * grant written before lspgate starts (`--allow-net=unix:…`, Deno's exact-path scope for a Unix
 * socket) names it. The daemon serves every workspace its clients name.
 */
export async function daemonSocket(): Promise<string> {
  await socketFolder();
  return daemonSocketPath();
}
