import { dirname, isAbsolute, join, resolve } from "../posix_path.ts";
import { fileURLToPath } from "../file_url.ts";
import { readVerified, sameFile } from "../permissions/file_io.ts";

/** Where lspgate looks for a server: never inside the workspace unless the root is trusted. */
export interface FindOptions {
  /** Real path of the project root the server will serve. */
  root: string;
  /** Real path of the workspace root (the boundary). */
  workspace: string;
  /**
   * The user marked this root trusted (and its servers run sandboxed): its own
   * `node_modules/.bin` is searched first, from `root` up to `workspace`.
   */
  trusted?: boolean;
}

/**
 * Finds a server's executable. Rationale: a repository chooses nothing that runs, so by default
 * only PATH and lspgate's own tools folders are searched, and PATH folders inside the workspace
 * (or relative ones, such as `.`) are skipped. Only for a trusted root is the project's
 * `node_modules/.bin` searched, first.
 */
export async function findBinary(name: string, options: FindOptions): Promise<string | undefined> {
  if (options.trusted) {
    for (let dir = options.root;; dir = dirname(dir)) {
      const candidate = join(dir, "node_modules", ".bin", name);
      if (isExecutable(candidate)) return candidate;
      if (dir === options.workspace || dir === dirname(dir) || !dir.startsWith(options.workspace)) {
        break;
      }
    }
  }
  return await onPath(name, options.workspace);
}

/**
 * Finds an executable on PATH, then in lspgate's tools folders. With `workspace`, folders inside
 * it are skipped (also when reached through a symlink).
 */
export function onPath(name: string, workspace?: string): Promise<string | undefined> {
  const seen = new Set<string>();
  for (const dir of candidateFolders()) {
    if (!isAbsolute(dir) || seen.has(dir)) continue;
    seen.add(dir);
    // Judged where the program is: a real path of every folder first cost a server's start ~3 ms.
    const candidate = join(dir, name);
    if (!isExecutable(candidate)) continue;
    if (workspace === undefined || !isInsideReal(dir, workspace)) return Promise.resolve(candidate);
  }
  return Promise.resolve(undefined);
}

/** The folders searched for servers: PATH's absolute folders outside `workspace`, then the tools folders. */
export function searchFolders(workspace?: string): string[] {
  const folders: string[] = [];
  for (const dir of candidateFolders()) {
    if (!isAbsolute(dir) || folders.includes(dir)) continue;
    if (workspace !== undefined && isInsideReal(dir, workspace)) continue;
    folders.push(dir);
  }
  return folders;
}

/** PATH's folders, then the tools folders (found only once PATH's are looked through). */
function* candidateFolders(): Generator<string> {
  yield* pathFolders();
  yield* toolsFolders();
}

/**
 * PATH for a server's environment: PATH's absolute folders outside `workspace`; undefined when
 * lspgate may not read PATH (the server then inherits it as it is).
 */
export function serverPath(workspace: string): string | undefined {
  if (env("PATH") === undefined) return undefined;
  const folders = [];
  for (const dir of pathFolders()) {
    if (isAbsolute(dir) && !isInsideReal(dir, workspace)) folders.push(dir);
  }
  return folders.join(":");
}

/**
 * lspgate's own tools folders, where `lspgate` installs servers for its user: `$LSPGATE_TOOLS_DIR`,
 * `$XDG_DATA_HOME/lspgate/tools` (default `~/.local/share/lspgate/tools`) and `.lspgate/tools` in
 * lspgate's checkout when it runs from one; each searched in `bin/`, `node_modules/.bin/` and `local/bin/`.
 */
export function toolsFolders(): string[] {
  const roots: string[] = [];
  const configured = env("LSPGATE_TOOLS_DIR");
  if (configured) roots.push(configured);
  const home = env("HOME");
  const data = env("XDG_DATA_HOME") || (home ? join(home, ".local", "share") : undefined);
  if (data) roots.push(join(data, "lspgate", "tools"));
  const checkout = checkoutTools();
  if (checkout) roots.push(checkout);
  // `pip install --prefix` puts scripts in bin/, or local/bin/ under Debian's Python scheme.
  return roots.flatMap((root) => [
    join(root, "bin"),
    join(root, "node_modules", ".bin"),
    join(root, "local", "bin"),
  ]);
}

let checkoutToolsFolder: string | null | undefined;

/**
 * `.lspgate/tools` of lspgate's own checkout, when lspgate runs from one (mod.ts, or a bundle in
 * the checkout's dist/). Rationale: a bundle copied elsewhere has no checkout above it, and the
 * folder above it may be anyone's (`/tmp/.lspgate/tools` for a bundle in /tmp/x/), so a
 * `.lspgate/tools` there is never searched: the bundle finds servers on PATH and in the tools
 * folders named by the environment, wherever it runs.
 */
function checkoutTools(): string | undefined {
  if (checkoutToolsFolder === undefined) {
    const home = lspgateHome();
    try {
      const config = JSON.parse(Deno.readTextFileSync(join(home, "deno.json")));
      checkoutToolsFolder = config?.name === "@lspgate/lspgate"
        ? join(home, ".lspgate", "tools")
        : null;
    } catch {
      checkoutToolsFolder = null;
    }
  }
  return checkoutToolsFolder ?? undefined;
}

/** lspgate's own folder (where mod.ts is). */
export function lspgateHome(): string {
  const here = import.meta.url.startsWith("file:")
    ? dirname(fileURLToPath(import.meta.url))
    : Deno.cwd();
  // src/servers/find_binary.ts → the checkout; a bundle sits in dist/.
  return here.endsWith("/src/servers") ? resolve(here, "..", "..") : resolve(here, "..");
}

function pathFolders(): string[] {
  return (env("PATH") ?? "").split(":").filter((dir) => dir !== "");
}

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    // Without --allow-env for this name it counts as unset.
    return undefined;
  }
}

// The file system calls below run in the thread: each is a few µs there, where a hop to Deno's
// blocking pool and back costs ~0.1 ms, and a server's start asks dozens of them before it spawns
// (every PATH folder's real path, every candidate binary).

function isInsideReal(dir: string, workspace: string): boolean {
  const within = (path: string) => path === workspace || path.startsWith(workspace + "/");
  if (within(resolve(dir))) return true;
  try {
    return within(Deno.realPathSync(dir));
  } catch {
    return false;
  }
}

function isExecutable(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The real path of a file (symlinks of npm's `.bin` followed), or the path itself. */
export function realPath(path: string): Promise<string> {
  try {
    return Promise.resolve(Deno.realPathSync(path));
  } catch {
    return Promise.resolve(path);
  }
}

/** The nearest folder at or above `from` that holds `node_modules/<pkg>/package.json`, and its version. */
export async function findPackage(
  pkg: string,
  from: string,
  stopAt: string,
): Promise<{ dir: string; version: string } | undefined> {
  for (let dir = from;; dir = dirname(dir)) {
    const found = await readPackageInside(join(dir, "node_modules", pkg), stopAt, pkg);
    if (found) return found;
    if (dir === stopAt || dir === dirname(dir) || !dir.startsWith(stopAt)) return undefined;
  }
}

/** The most of a project's package.json read. */
const MAX_PACKAGE_JSON = 1024 * 1024;

/**
 * `<dir>/package.json`'s version, read as the workspace boundary reads: a regular file, checked
 * again once open (a FIFO there held the server's start, and lspgate's exit, for good: a helper's
 * find), by its real path inside `inside` (a workspace); outside it, only a package `pkg`'s own
 * manifest (`…/<pkg>/package.json` naming `pkg`: a node_modules linked to the user's install), never
 * any file a link points at (its `version` showed in `status`, the same helper's find).
 */
async function readPackageInside(
  dir: string,
  inside: string,
  pkg: string,
): Promise<{ dir: string; version: string } | undefined> {
  const within = (path: string) => path === inside || path.startsWith(inside + "/");
  try {
    const path = join(dir, "package.json");
    const real = Deno.realPathSync(path);
    const own = within(Deno.realPathSync(dir)) && within(real);
    if (!own && !real.endsWith(`/${pkg}/package.json`)) return undefined;
    const bytes = await readVerified(real, MAX_PACKAGE_JSON, (opened) => {
      // Swapped between the look and the open: not read.
      if (Deno.realPathSync(path) !== real || !sameFile(opened, Deno.statSync(real))) {
        return Promise.reject(new Error(`${path} changed while it was read`));
      }
      return Promise.resolve();
    });
    const json = JSON.parse(new TextDecoder().decode(bytes));
    if (!own && json.name !== pkg) return undefined;
    return typeof json.version === "string" ? { dir, version: json.version } : undefined;
  } catch {
    return undefined;
  }
}

/** Reads `<dir>/package.json`'s version, if the package is there (an install of the user's). */
export async function readPackage(
  dir: string,
): Promise<{ dir: string; version: string } | undefined> {
  try {
    const json = JSON.parse(await Deno.readTextFile(join(dir, "package.json")));
    return typeof json.version === "string" ? { dir, version: json.version } : undefined;
  } catch {
    return undefined;
  }
}
