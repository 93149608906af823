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
 * The private folder of this user's lspgate runtime files (the daemon's socket, the hook's turn
 * state, watcher barriers): `$XDG_RUNTIME_DIR/lspgate`, else `/tmp/lspgate-$USER`. Not created
 * here (see ensureRuntimeFolder in runtime_folder.ts).
 *
 * Rationale: it is named from the environment alone, the way a shell or `deno task` expands it,
 * so the grant can be written before lspgate starts — `--allow-write=$XDG_RUNTIME_DIR/lspgate,
 * /tmp/lspgate-$USER` — and no user id is needed (that would take `--allow-sys`).
 */
export function runtimeFolderPath(): string {
  const runtime = env("XDG_RUNTIME_DIR");
  return runtime ? join(runtime, "lspgate") : `/tmp/lspgate-${env("USER") ?? ""}`;
}

/**
 * The grant for the runtime folder as a shell or `deno task` writes it, before lspgate starts:
 * write on the folder and net for the daemon's one socket (Deno's exact-path scope for a Unix
 * socket). Both names are given, the one in force being the first whose variable is set; the
 * other is never used. Every printed command line and deno.json's start tasks carry these.
 */
export const RUNTIME_GRANT: readonly string[] = [
  "--allow-write=$XDG_RUNTIME_DIR/lspgate,/tmp/lspgate-$USER",
  "--allow-net=unix:$XDG_RUNTIME_DIR/lspgate/daemon.sock,unix:/tmp/lspgate-$USER/daemon.sock",
];

/** The daemon's one socket in the runtime folder: fixed, so `--allow-net=unix:…` can name it. */
export function daemonSocketPath(): string {
  return join(runtimeFolderPath(), "daemon.sock");
}

/**
 * This process's user id: Deno.uid() where `--allow-sys=uid` is granted, else the real uid of
 * `/proc/self/status` (read, not sys, permission); null where neither can be had (never a prompt).
 */
export function uid(): number | null {
  try {
    if (Deno.permissions.querySync({ name: "sys", kind: "uid" }).state === "granted") {
      return Deno.uid();
    }
  } catch {
    // Not a permission this Deno knows: try /proc.
  }
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const real = status.match(/^Uid:\s+(\d+)/m)?.[1];
    return real === undefined ? null : Number(real);
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
