/**
 * Whether a workspace's configuration names plugins a server would run: `deno.json` `"lint":
 * {"plugins": ["./plugin.ts"]}` makes `deno lsp` load and run that code for every file it lints
 * (it has no setting that turns plugins off but linting on: cli/lsp/lint.rs loads them whenever
 * the config names any); `biome.json` `"plugins"` makes Biome run GritQL and JavaScript plugins.
 * For a root the user has not trusted, lspgate then turns that part of the server off.
 *
 * @module
 */

import { parseJsonc } from "../jsonc.ts";
import { dirname, join, relative } from "node:path";
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
  const names = ["svelte.config.js", "svelte.config.mjs", "svelte.config.cjs", "svelte.config.ts"];
  return findConfigs(root, names, () => Promise.resolve(true));
}

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
 * it leads to a file inside `root` (its target is then tested). Every folder is looked in but
 * node_modules: the servers find a config above any file they are asked about (deno lsp read one
 * in `.cache/` and `target/`, which lspgate's other walks skip), and none lints node_modules.
 */
async function findConfigs(
  root: string,
  names: string[],
  test: (path: string) => Promise<boolean>,
): Promise<string[]> {
  const found: string[] = [];
  const complete = await walkTree(root, async (path, entry) => {
    if (!names.includes(entry.name) || !(entry.isFile || entry.isSymlink)) return;
    const inside = entry.isFile || await fileInside(root, join(root, path));
    if (!inside || await test(path)) found.push(path);
  }, (entry) => entry.name !== "node_modules");
  found.sort();
  return complete ? found : [...found, "…"];
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
 * Whether the config at `path`, or one it extends, names plugins. Leniently, as the server reads
 * it: one it cannot parse but that mentions plugins counts, and so does an `extends` that leaves
 * the root, names a package, or goes deeper than MAX_EXTENDS.
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
  const config = await parseJsonc(text);
  const plugins = kind.plugins(config);
  if (Array.isArray(plugins) ? plugins.length > 0 : plugins !== undefined) return true;
  if (config === undefined && text.includes("plugins")) return true;
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
