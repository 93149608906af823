/**
 * Whether a workspace's configuration names plugins a server would run: `deno.json` `"lint":
 * {"plugins": ["./plugin.ts"]}` makes `deno lsp` load and run that code for every file it lints
 * (it has no setting that turns plugins off but linting on: cli/lsp/lint.rs loads them whenever
 * the config names any); `biome.json` `"plugins"` makes Biome run GritQL and JavaScript plugins.
 * For a root the user has not trusted, lspgate then turns that part of the server off.
 *
 * @module
 */

import { jsonc } from "../jsonc.ts";
import { dirname, join, relative } from "../posix_path.ts";
import { isSkippedFolder } from "../permissions/walk.ts";
import { walkTree } from "./tree_walk.ts";

/** Where a config names plugins, for each server that runs them, and what it extends. */
const PLUGIN_CONFIGS = {
  deno: {
    names: ["deno.json", "deno.jsonc"],
    plugins: (c: Config) => c?.lint?.plugins,
    extends: (_c: Config) => undefined,
  },
  biome: {
    names: ["biome.json", "biome.jsonc"],
    plugins: (c: Config) => c?.plugins,
    // Biome merges in the configs `extends` names, their plugins too (a helper's find).
    extends: (c: Config) => c?.extends,
  },
};

// deno-lint-ignore no-explicit-any
type Config = any;

/** How deep a chain of `extends` is followed; deeper counts as naming plugins. */
const MAX_EXTENDS = 8;

/**
 * The workspace-relative Deno config files under `root` that name lint plugins (`deno lsp` reads
 * every one in its workspace folder), or `["…"]` when there are too many files to look through.
 */
export function denoLintPlugins(root: string): Promise<string[]> {
  return configsNamingPlugins(root, "deno");
}

/** The workspace-relative Biome config files under `root` that name plugins (or `["…"]`). */
export function biomePlugins(root: string): Promise<string[]> {
  return configsNamingPlugins(root, "biome");
}

/**
 * The workspace-relative Svelte configs under `root` (or `["…"]`): svelte-language-server imports
 * svelte.config.js — the repository's JavaScript — for its preprocessors, whatever it holds.
 */
export function svelteConfigs(root: string): Promise<string[]> {
  return findConfigs(root, SVELTE_CONFIGS, () => Promise.resolve(true));
}

const SVELTE_CONFIGS = [
  "svelte.config.js",
  "svelte.config.mjs",
  "svelte.config.cjs",
  "svelte.config.ts",
];

function configsNamingPlugins(
  root: string,
  server: keyof typeof PLUGIN_CONFIGS,
): Promise<string[]> {
  const { names } = PLUGIN_CONFIGS[server];
  return findConfigs(
    root,
    names,
    (path) => namesPlugins(root, join(root, path), PLUGIN_CONFIGS[server], new Set()),
  );
}

/**
 * Files named `names` under `root` that pass `test`, sorted; a link by such a name counts unless
 * it leads to a file inside `root` (its target is then tested). Heavy folders (`.git`, `.venv`,
 * Cargo's `target`, `.cache`…) are not walked, which a checkout's tens of thousands of files there
 * would cut short (and a walk cut short turns the server's part off): a file asked about inside
 * one is checked on its own (pluginConfigAbove).
 */
async function findConfigs(
  root: string,
  names: string[],
  test: (path: string) => Promise<boolean>,
): Promise<string[]> {
  const found: string[] = [];
  const complete = await walkTree(root, async (path, entry) => {
    if (await namedConfig(root, path, entry, names, test)) found.push(path);
  }, (entry, folder) => !isSkippedFolder(folder, entry.name));
  found.sort();
  return complete ? found : [...found, "…"];
}

/** Whether the entry at `path` is a config by one of `names` that counts (see findConfigs). */
async function namedConfig(
  root: string,
  path: string,
  entry: { name: string; isFile: boolean; isSymlink: boolean },
  names: string[],
  test: (path: string) => Promise<boolean>,
): Promise<boolean> {
  if (!names.includes(entry.name) || !(entry.isFile || entry.isSymlink)) return false;
  const inside = entry.isFile || await fileInside(root, join(root, path));
  return !inside || await test(path);
}

/**
 * For a file inside a folder the walk at start passed over (`.cache/main.ts`): the config by
 * `server`'s names in that folder or below it, on the way to the file, that names plugins (the
 * server reads the nearest config above a file: deno lsp ran a plugin of `.cache/deno.json` and
 * `target/deno.json`, a helper's find). Undefined for every other file, at no cost.
 */
export function pluginConfigAbove(
  root: string,
  file: string,
  server: keyof typeof PLUGIN_CONFIGS | "svelte",
): Promise<string | undefined> {
  if (server === "svelte") {
    return configAbove(root, file, SVELTE_CONFIGS, () => Promise.resolve(true));
  }
  const test = (path: string) =>
    namesPlugins(root, join(root, path), PLUGIN_CONFIGS[server], new Set());
  return configAbove(root, file, PLUGIN_CONFIGS[server].names, test);
}

async function configAbove(
  root: string,
  file: string,
  names: string[],
  test: (path: string) => Promise<boolean>,
): Promise<string | undefined> {
  const rel = relative(root, dirname(file));
  if (rel === "" || rel.startsWith("..") || rel.startsWith("/")) return undefined;
  let folder = root;
  let skipped = false;
  for (const part of rel.split("/")) {
    skipped ||= isSkippedFolder(folder, part);
    folder = join(folder, part);
    if (!skipped) continue;
    for (const name of names) {
      const path = relative(root, join(folder, name));
      const entry = await Deno.lstat(join(folder, name)).catch(() => undefined);
      if (entry && await namedConfig(root, path, { name, ...entry }, names, test)) return path;
    }
  }
  return undefined;
}

/** Whether `path` leads (through links) to a regular file inside `root`. */
async function fileInside(root: string, path: string): Promise<boolean> {
  try {
    const real = await Deno.realPath(path);
    const rel = relative(root, real);
    return !rel.startsWith("..") && !rel.startsWith("/") && (await Deno.stat(real)).isFile;
  } catch {
    return false;
  }
}

/**
 * Whether the config at `path`, or one it extends, names plugins. Conservatively: one that is not
 * plain JSON with comments counts, and so does an `extends` that leaves the root, names a
 * package, or goes deeper than MAX_EXTENDS.
 */
async function namesPlugins(
  root: string,
  path: string,
  kind: (typeof PLUGIN_CONFIGS)[keyof typeof PLUGIN_CONFIGS],
  seen: Set<string>,
): Promise<boolean> {
  if (seen.has(path)) return false;
  if (seen.size >= MAX_EXTENDS) return true;
  seen.add(path);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return false;
  }
  // Strictly: a text jsonc-parser reads with errors counts. Deno reads more than JSON with
  // comments (single-quoted strings: a helper's find ran `{'lint':{'plugins':[…]}}`'s plugin),
  // and what it reads there cannot be told for sure.
  const errors: unknown[] = [];
  let config: Config;
  try {
    config = (await jsonc()).parse(text, errors as never, { allowTrailingComma: true });
  } catch {
    return true;
  }
  if (errors.length > 0) return true;
  const plugins = kind.plugins(config);
  if (Array.isArray(plugins) ? plugins.length > 0 : plugins !== undefined) return true;
  const extended = kind.extends(config);
  for (const spec of extended === undefined ? [] : [extended].flat()) {
    // "//": the project's root config, which the walk finds and tests on its own.
    if (spec === "//") continue;
    if (typeof spec !== "string" || !spec.startsWith(".")) return true;
    const next = join(dirname(path), spec);
    if (!(await fileInside(root, next))) return true;
    if (await namesPlugins(root, next, kind, seen)) return true;
  }
  return false;
}
