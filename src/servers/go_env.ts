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
import { env, pathExists } from "../fs.ts";

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
  const hash = await binaryHash(gopls);
  if (hash && await pathExists(join(root, "gopls", hash))) paths.push(join(root, "gopls", hash));
  if (await pathExists(join(root, "goimports"))) paths.push(join(root, "goimports"));
  return paths.length ? { root, paths } : undefined;
}

const hashes = new Map<string, Promise<string | undefined>>();

/** The first 8 hex digits of a file's sha256, computed once per path, size and mtime. */
function binaryHash(path: string): Promise<string | undefined> {
  return (async () => {
    let key: string;
    try {
      const info = await Deno.stat(path);
      key = `${path}\0${info.size}\0${info.mtime?.getTime()}`;
    } catch {
      return undefined;
    }
    let found = hashes.get(key);
    if (!found) {
      found = sha256Prefix(path);
      hashes.set(key, found);
    }
    return await found;
  })();
}

/** Streamed, so a 40 MB binary is never held in memory at once. */
async function sha256Prefix(path: string): Promise<string | undefined> {
  try {
    // Loaded here, not at start: node:crypto costs every start ~8 ms, and only gopls needs it.
    const { createHash } = await import("node:crypto");
    const hash = createHash("sha256");
    // The stream closes the file at its end (or on an error).
    for await (const chunk of (await Deno.open(path)).readable) hash.update(chunk);
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
