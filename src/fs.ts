import { join } from "./posix_path.ts";

/** True when something (a file, a folder, a symlink, even dangling) is at `path`. */
export function pathExists(path: string): Promise<boolean> {
  // In the thread: a stat is a few µs, a hop to Deno's blocking pool ~0.1 ms (root markers are
  // looked for in every folder up to the root for every candidate server of a file).
  return Promise.resolve(pathExistsSync(path));
}

/** pathExists(), answered at once. */
export function pathExistsSync(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The private folder of this user's lspgate runtime files (the daemon's socket, the hook's turn
 * state, watcher barriers): `$XDG_RUNTIME_DIR/lspgate`, else `$TMPDIR/lspgate-$USER`, else
 * `/tmp/lspgate-$USER` — the first that is a folder this process can write in, or that it can make
 * (mode 0700): inside an agent's own sandbox (sandbox-runtime, a container) `$XDG_RUNTIME_DIR`
 * and `/tmp` may be read-only while `$TMPDIR` is the one writable place. Remembered per
 * environment; its checks are ensureRuntimeFolder's (runtime_folder.ts).
 *
 * Rationale: every candidate is named from the environment alone, the way a shell or `deno task`
 * expands it, so the grant can be written before lspgate starts (RUNTIME_GRANT) and no user id is
 * needed (that would take `--allow-sys`).
 */
export function runtimeFolderPath(): string {
  const user = env("USER") ?? "";
  const candidates = [
    ...new Set([
      ...optional(env("XDG_RUNTIME_DIR"), (dir) => join(dir, "lspgate")),
      ...optional(env("TMPDIR"), (dir) => join(dir, `lspgate-${user}`)),
      `/tmp/lspgate-${user}`,
    ]),
  ];
  const key = candidates.join("\0");
  let chosen = chosenFolders.get(key);
  if (chosen === undefined) {
    // In order: a candidate is taken when this process may write there and it is a folder it
    // can write in, or can make. One it may not write is passed over: a grant written when
    // $XDG_RUNTIME_DIR was another (`deno install` expands it then) still names $TMPDIR's or
    // /tmp's, which serve (a helper's find: the hook checked nothing, PERMISSION_DENIED).
    // A process that may write none (e.g. `lspgate permissions`, printing a grant) names the
    // folder by the environment alone: the first candidate.
    chosen = candidates.find((c) => mayWrite(c) && (isFolder(c) ? canWriteIn(c) : canMake(c))) ??
      candidates[0];
    chosenFolders.set(key, chosen);
  }
  return chosen;
}

const chosenFolders = new Map<string, string>();

function optional(value: string | undefined, make: (value: string) => string): string[] {
  return value ? [make(value)] : [];
}

/**
 * Whether Deno grants this process reading and writing `path` already: asked before lspgate uses
 * a folder it may be refused, since where Deno may prompt a first use would wait on the prompt.
 */
export function mayReadAndWrite(path: string): boolean {
  try {
    const read = Deno.permissions.querySync({ name: "read", path });
    return read.state === "granted" && mayWrite(path);
  } catch {
    return false;
  }
}

function mayWrite(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "write", path }).state === "granted";
  } catch {
    return false;
  }
}

function isFolder(path: string): boolean {
  try {
    return Deno.lstatSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** Whether a file can be made in the folder `path` (a sandbox may show it read-only). */
function canWriteIn(path: string): boolean {
  const probe = join(path, `.probe-${crypto.randomUUID()}`);
  try {
    Deno.openSync(probe, { createNew: true, write: true, mode: 0o600 }).close();
    Deno.removeSync(probe);
    return true;
  } catch {
    return false;
  }
}

function canMake(path: string): boolean {
  try {
    Deno.mkdirSync(path, { mode: 0o700 });
    return true;
  } catch (error) {
    return error instanceof Deno.errors.AlreadyExists;
  }
}

/**
 * The grant for the runtime folder as a shell or `deno task` writes it, before lspgate starts:
 * write on the folder and net for the daemon's one socket (Deno's exact-path scope for a Unix
 * socket). Every candidate name is given; the ones not in force are never used (an unset variable
 * names a path such as `/lspgate` that lspgate never touches). Every printed command line and
 * deno.json's start tasks carry these.
 */
export const RUNTIME_GRANT: readonly string[] = [
  "--allow-write=$XDG_RUNTIME_DIR/lspgate,$TMPDIR/lspgate-$USER,/tmp/lspgate-$USER",
  "--allow-net=unix:$XDG_RUNTIME_DIR/lspgate/daemon.sock,unix:$TMPDIR/lspgate-$USER/daemon.sock," +
  "unix:/tmp/lspgate-$USER/daemon.sock",
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
