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
import { join } from "node:path";
import { isSkippedFolder } from "../permissions/walk.ts";
import { walkTree } from "./tree_walk.ts";

/** Where a config names plugins, for each server that runs them. */
const PLUGIN_CONFIGS = {
  deno: { names: ["deno.json", "deno.jsonc"], plugins: (c: Config) => c?.lint?.plugins },
  biome: { names: ["biome.json", "biome.jsonc"], plugins: (c: Config) => c?.plugins },
};

// deno-lint-ignore no-explicit-any
type Config = any;

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
  const { names, plugins } = PLUGIN_CONFIGS[server];
  return findConfigs(root, names, (path) => namesPlugins(root, path, plugins));
}

/** Files named `names` under `root` (heavy folders skipped) that pass `test`, sorted. */
async function findConfigs(
  root: string,
  names: string[],
  test: (path: string) => Promise<boolean>,
): Promise<string[]> {
  const found: string[] = [];
  const complete = await walkTree(root, async (path, entry) => {
    if (entry.isFile && names.includes(entry.name) && await test(path)) found.push(path);
  }, (entry, folder) => !isSkippedFolder(folder, entry.name));
  found.sort();
  return complete ? found : [...found, "…"];
}

async function namesPlugins(
  root: string,
  path: string,
  pluginsOf: (config: Config) => unknown,
): Promise<boolean> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(root, path));
  } catch {
    return false;
  }
  // Leniently, as Deno reads it: a config it cannot parse names nothing it would load, but a
  // half-written one might; anything that mentions plugins counts.
  const config = await parseJsonc(text);
  const plugins = pluginsOf(config);
  if (Array.isArray(plugins)) return plugins.length > 0;
  return plugins !== undefined || (config === undefined && text.includes("plugins"));
}
