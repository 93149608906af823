/**
 * What gopls reads of the user's Go setup, found as `go` itself finds it: the environment, then
 * the user's `go env -w` file, then Go's defaults. No program is run to learn it.
 *
 * Rationale (issue 15): sandboxed, gopls saw no module cache beyond GOMODCACHE and no cache of its
 * own, so every start type-checked the standard library again (~4x slower, ~3x the memory of an
 * unsandboxed start), and rebuilt goimports' index of the module cache. Its caches are
 * read-only inside (what it writes there fails, and is logged); Go's build cache stays private
 * to the sandbox, since `go list` must write to it.
 *
 * @module
 */

import { join } from "../posix_path.ts";
import { env, mayReadAndWrite, pathExists, runtimeFolderPath } from "../fs.ts";
import { ensureRuntimeFolder, readRuntimeFile, writeRuntimeFile } from "../runtime_folder.ts";

/** The Go setup a sandboxed gopls needs: paths to show it read-only, its environment and settings. */
export interface GoSetup {
  readOnlyPaths: string[];
  env: Record<string, string>;
  /** gopls settings (also its initialization options): the environment of the go commands it runs. */
  settings?: Record<string, unknown>;
}

/** The user's Go setup for `goroot` and the gopls binary at `gopls` (a real path), if any. */
export async function goSetup(goroot: string, gopls?: string): Promise<GoSetup> {
  const file = await goEnvFile();
  const get = (name: string) => env(name) || file[name] || undefined;
  const home = env("HOME");
  const gopath = get("GOPATH")?.split(":")[0] ?? (home ? join(home, "go") : undefined);
  const modcache = get("GOMODCACHE") ?? (gopath ? join(gopath, "pkg", "mod") : undefined);
  const readOnlyPaths = [goroot];
  const result: GoSetup = { readOnlyPaths, env: { GOROOT: goroot } };
  if (modcache) {
    result.env.GOMODCACHE = modcache;
    if (await pathExists(modcache)) readOnlyPaths.push(modcache);
  }
  // The user's own flags (e.g. -buildvcs=false), which the private HOME inside would lose.
  const goflags = get("GOFLAGS");
  if (goflags) result.env.GOFLAGS = goflags;
  const caches = gopls ? await goplsCaches(gopls) : undefined;
  if (caches) {
    readOnlyPaths.push(...caches.paths);
    // gopls finds both caches only through os.UserCacheDir() (XDG_CACHE_HOME, else HOME/.cache);
    // the go commands it runs are told to forget it, so Go's build cache is the private HOME's:
    // `go list` writes there, and a cgo package missing from a read-only cache fails to load.
    result.env.XDG_CACHE_HOME = caches.root;
    result.settings = { env: { XDG_CACHE_HOME: "" } };
  }
  return result;
}

/**
 * gopls's caches in the user's cache folder: its file cache for this binary,
 * `gopls/<first 4 bytes of the binary's sha256>` (only where it exists: gopls stops if it cannot
 * create it, and read-only it could not), and goimports' index of the module cache (built anew,
 * it costs seconds and ~150 MiB at every start).
 */
async function goplsCaches(
  gopls: string,
): Promise<{ root: string; paths: string[] } | undefined> {
  const home = env("HOME");
  const root = env("XDG_CACHE_HOME") || (home ? join(home, ".cache") : undefined);
  if (!root) return undefined;
  const paths: string[] = [];
  // No gopls cache folder at all: its binary is not read to name a folder that is not there.
  const hash = await pathExists(join(root, "gopls")) ? await binaryHash(gopls) : undefined;
  if (hash && await pathExists(join(root, "gopls", hash))) paths.push(join(root, "gopls", hash));
  if (await pathExists(join(root, "goimports"))) paths.push(join(root, "goimports"));
  return paths.length ? { root, paths } : undefined;
}

const hashes = new Map<string, Promise<string | undefined>>();

/** The runtime folder's file of binaries' hashes, for the next lspgate process. */
const HASHES_FILE = "gopls-hashes.json";
/** The most binaries it remembers (the oldest forgotten first). */
const HASHES_KEPT = 16;

/**
 * The first 8 hex digits of a file's sha256 (gopls names its file cache so), computed once per
 * path, device, inode, size, mtime and ctime (a binary installed since is a new inode; one written
 * in place has a new ctime, to the second) and remembered in the runtime folder: reading a 42 MB
 * gopls took 140–350 ms of every process's first gopls start.
 */
function binaryHash(path: string): Promise<string | undefined> {
  return (async () => {
    let key: string;
    try {
      const info = await Deno.stat(path);
      key = [info.dev, info.ino, info.size, info.mtime?.getTime(), info.ctime?.getTime(), path]
        .join(":");
    } catch {
      return undefined;
    }
    let found = hashes.get(key);
    if (!found) {
      found = remembered(key, () => sha256Prefix(path));
      hashes.set(key, found);
    }
    return await found;
  })();
}

/** The hash the runtime folder holds for `key`, else `compute`'s, written there for later. */
async function remembered(
  key: string,
  compute: () => Promise<string | undefined>,
): Promise<string | undefined> {
  let file: string | undefined;
  let known: [string, string][] = [];
  try {
    if (mayReadAndWrite(runtimeFolderPath())) {
      file = join(await ensureRuntimeFolder(), HASHES_FILE);
      known = hashesIn(await readRuntimeFile(file) ?? "{}");
    }
  } catch {
    // No runtime folder this process may use (not this user's, a link at the file): not kept.
  }
  const kept = known.find(([k]) => k === key)?.[1];
  if (kept) return kept;
  const hash = await compute();
  if (hash && file) {
    const entries = [...known.filter(([k]) => k !== key).slice(1 - HASHES_KEPT), [key, hash]];
    // Two processes writing at once: the last one's stays, the other's is computed again later.
    await writeRuntimeFile(file, JSON.stringify(Object.fromEntries(entries))).catch(() => {});
  }
  return hash;
}

/** The well-formed entries of a hashes file's text (a damaged file holds none). */
function hashesIn(text: string): [string, string][] {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
    return Object.entries(value).filter((entry): entry is [string, string] =>
      typeof entry[1] === "string" && /^[0-9a-f]{8}$/.test(entry[1])
    );
  } catch {
    return [];
  }
}

/**
 * Read a MiB at a time into one buffer: a 40 MB binary is never held in memory at once, and it
 * hashes in ~65 ms where its file's ReadableStream took 140–350.
 */
async function sha256Prefix(path: string): Promise<string | undefined> {
  try {
    // Loaded here, not at start: node:crypto costs every start ~8 ms, and only gopls needs it.
    const { createHash } = await import("node:crypto");
    const hash = createHash("sha256");
    using file = await Deno.open(path);
    const buffer = new Uint8Array(2 ** 20);
    for (let n = await file.read(buffer); n !== null; n = await file.read(buffer)) {
      hash.update(buffer.subarray(0, n));
    }
    return hash.digest("hex").slice(0, 8);
  } catch {
    return undefined;
  }
}

/** The user's `go env -w` settings: `$GOENV`, else `<config dir>/go/env`. */
async function goEnvFile(): Promise<Record<string, string>> {
  const home = env("HOME");
  const config = env("XDG_CONFIG_HOME") || (home ? join(home, ".config") : undefined);
  const path = env("GOENV") || (config ? join(config, "go", "env") : undefined);
  if (!path || path === "off") return {};
  try {
    const settings: Record<string, string> = {};
    for (const line of (await Deno.readTextFile(path)).split("\n")) {
      const match = line.match(/^\s*([A-Z0-9_]+)=(.*)$/);
      if (match) settings[match[1]] = match[2].trim();
    }
    return settings;
  } catch {
    return {};
  }
}
