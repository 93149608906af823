import { join } from "node:path";

/** True when something (a file, a folder, a symlink, even dangling) is at `path`. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The private folder of this user's lspgate runtime files (daemon sockets, watcher barriers):
 * `$XDG_RUNTIME_DIR/lspgate`, else `$TMPDIR/lspgate-<uid>` (default `/tmp`). Not created here.
 */
export function runtimeFolderPath(): string {
  const runtime = env("XDG_RUNTIME_DIR");
  return runtime
    ? join(runtime, "lspgate")
    : join(env("TMPDIR") || "/tmp", `lspgate-${uid() ?? "user"}`);
}

/** This process's user id; null where unknown or not granted (`--allow-sys=uid`). */
export function uid(): number | null {
  try {
    return Deno.uid();
  } catch {
    return null;
  }
}

/** An environment variable, or undefined when unset or not readable (no --allow-env for it). */
export function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
