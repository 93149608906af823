import { dirname, join } from "node:path";

/** Finds an executable: the project's `node_modules/.bin` (from `root` up to `workspace`), then PATH. */
export async function findBinary(
  name: string,
  options: { root: string; workspace: string },
): Promise<string | undefined> {
  for (let dir = options.root;; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", ".bin", name);
    if (await isExecutable(candidate)) return candidate;
    if (dir === options.workspace || dir === dirname(dir) || !dir.startsWith(options.workspace)) {
      break;
    }
  }
  return await onPath(name);
}

/** Finds an executable on PATH. */
export async function onPath(name: string): Promise<string | undefined> {
  const path = Deno.env.get("PATH") ?? "";
  for (const dir of path.split(":")) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The real path of a file (symlinks of npm's `.bin` followed), or the path itself. */
export async function realPath(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch {
    return path;
  }
}

/** The nearest folder at or above `from` that holds `node_modules/<pkg>/package.json`, and its version. */
export async function findPackage(
  pkg: string,
  from: string,
  stopAt: string,
): Promise<{ dir: string; version: string } | undefined> {
  for (let dir = from;; dir = dirname(dir)) {
    const found = await readPackage(join(dir, "node_modules", pkg));
    if (found) return found;
    if (dir === stopAt || dir === dirname(dir) || !dir.startsWith(stopAt)) return undefined;
  }
}

/** Reads `<dir>/package.json`'s version, if the package is there. */
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
