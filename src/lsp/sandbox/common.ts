/**
 * What every confinement backend shares: the {@link SandboxSpec} it honours, the system paths a
 * program needs to run, and the environment a server gets.
 *
 * Architecture Invariant: bubblewrap and Landlock read the same SandboxSpec, show the same paths
 * read-only (at the same absolute path as outside, so `file://` URIs mean the same file on both
 * sides) and pass the same reduced environment.
 *
 * @module
 */

/** How a server is confined: not at all, by one backend (or fail), or by the best that works here. */
export type SandboxMode = "none" | "bwrap" | "landlock" | "auto";

/** The backend actually in force. */
export type SandboxBackend = "bwrap" | "landlock" | "none";

/** What a sandboxed server may see besides the system's programs. */
export interface SandboxSpec {
  /** The workspace root; read-only unless `workspaceWritable`. */
  workspace: string;
  /** Bind the workspace read-write (only for servers that must write there). */
  workspaceWritable: boolean;
  /** Host paths shown read-only: the server's install folder, node, toolchains; missing ones are skipped. */
  readOnlyPaths: string[];
  /** Host paths shown read-write, e.g. a cache the server needs; created when missing. */
  writablePaths?: string[];
  /** Extra environment for the server; the host's environment is not passed through. */
  env?: Record<string, string>;
  /**
   * Absolute path of bubblewrap, found by the caller outside the workspace (a `bwrap` in a PATH
   * folder inside the workspace would be the repository's program). Default: `bwrap` on PATH.
   */
  bwrap?: string;
}

/** The argv to spawn, the server's private HOME, and what to do once it has exited. */
export interface WrappedCommand {
  /** The argv to spawn: the backend's program and flags, then the command; or the command alone. */
  command: string[];
  /** HOME of the server (a path inside the sandbox), or undefined when not sandboxed. */
  home?: string;
  /** Whether the command runs in a sandbox. */
  sandboxed: boolean;
  /** Removes what the sandbox left on the host (Landlock's scratch folder); call once it exited. */
  cleanup?: () => Promise<void>;
}

/**
 * The system paths shown read-only so programs run. `/usr` is shown whole (interpreters, shared
 * libraries and global npm installs live there). `/etc` is NOT shown whole: it holds `shadow`,
 * `npmrc`, `gitconfig` and other files that may carry secrets, and a server has no network to use
 * TLS or DNS files with, so only what the loader, libc and node read is shown.
 */
export const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** The files of `/etc` a program needs (see {@link SYSTEM_DIRS}). */
export const SYSTEM_ETC = [
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  // Debian's /usr/bin links through here (e.g. `nodejs`, `editor`).
  "/etc/alternatives",
  // node's os.userInfo() fails with ENOENT without a passwd entry; both files
  // are world-readable on the host and carry no secret.
  "/etc/passwd",
  "/etc/group",
  "/etc/nsswitch.conf",
  "/etc/localtime",
  // node reads it at start and exits (code 13) on EACCES, which Landlock gives where bubblewrap's
  // missing file gave ENOENT; it holds no secret.
  "/etc/ssl/openssl.cnf",
];

/** Host variables passed to a server; everything else (tokens, keys) stays out. */
const PASSED_ENV = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ"];

/** PATH when the host has none. */
export const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/** The server's whole environment: PATH and locale from the host, HOME and TMPDIR, then `extra`. */
export function serverEnvironment(
  home: { HOME: string; TMPDIR: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = { PATH: DEFAULT_PATH };
  for (const name of PASSED_ENV) {
    const value = envGet(name);
    if (value !== undefined) env[name] = value;
  }
  return Object.assign(env, home, extra);
}

function envGet(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    // Without --allow-env for this name the default applies.
    return undefined;
  }
}

/** The real path of `path`, or undefined when nothing is there. */
export function realPath(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** How many folders deep `path` is (`/` is 0). */
export function depth(path: string): number {
  return path.split("/").filter(Boolean).length;
}
