/**
 * Whether a workspace's Deno configuration names lint plugins: `deno.json` `"lint": {"plugins":
 * ["./plugin.ts"]}` makes `deno lsp` load and run that code for every file it lints, and it has no
 * setting that turns plugins off but linting on (cli/lsp/lint.rs loads them whenever the config
 * names any). For a root the user has not trusted, lspgate then turns `deno lsp`'s linting off.
 *
 * @module
 */

import { parse } from "jsonc-parser";
import { join } from "node:path";
import { DEFAULT_SKIPPED_FOLDERS } from "../permissions/skipped_folders.ts";

/** Most folder entries looked at; past it the answer is "maybe", which counts as yes. */
const MAX_ENTRIES = 50_000;

const CONFIG_NAMES = new Set(["deno.json", "deno.jsonc"]);

/**
 * The workspace-relative Deno config files under `root` that name lint plugins (`deno lsp` reads
 * every one in its workspace folder), or `["…"]` when there are too many files to look through.
 */
export async function denoLintPlugins(root: string): Promise<string[]> {
  const found: string[] = [];
  const stack = [""];
  let seen = 0;
  while (stack.length) {
    const rel = stack.pop()!;
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(join(root, rel)));
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) return [...found, "…"];
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory && !DEFAULT_SKIPPED_FOLDERS.has(entry.name)) stack.push(path);
      else if (entry.isFile && CONFIG_NAMES.has(entry.name) && await namesPlugins(root, path)) {
        found.push(path);
      }
    }
  }
  return found.sort();
}

async function namesPlugins(root: string, path: string): Promise<boolean> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(root, path));
  } catch {
    return false;
  }
  // Leniently, as Deno reads it: a config it cannot parse names nothing it would load, but a
  // half-written one might; anything that mentions plugins counts.
  const config = parse(text, [], { allowTrailingComma: true });
  const plugins = config?.lint?.plugins;
  if (Array.isArray(plugins)) return plugins.length > 0;
  return plugins !== undefined || (config === undefined && text.includes("plugins"));
}
