/**
 * What the Vue and Astro language servers would load from a repository as code (found by running
 * the real servers on hostile workspaces; see adapters/vue.ts and adapters/astro.ts):
 * - @vue/language-server `require`s each `vueCompilerOptions.plugins` entry of the project's
 *   tsconfig/jsconfig (and of the configs it `extends`), resolved from the config's folder.
 * - @astrojs/language-server `require`s `@astrojs/svelte` and `@astrojs/vue`'s `dist/editor.cjs`
 *   from the node_modules above every .svelte/.vue file of the project, and, to format, the
 *   project's `prettier` and `prettier-plugin-astro`, and the prettier config (a JS config, or the
 *   plugins and shared config a data config names) through prettier, bundled or not.
 * Neither server has a setting against it, so for an untrusted root the adapter does not start
 * where such code is found, and says which files.
 *
 * @module
 */

import { dirname, isAbsolute, join, relative } from "../posix_path.ts";
import { parseJsonc } from "../jsonc.ts";
import type { Adapter } from "./adapter.ts";
import { MAX_WALKED_ENTRIES, walkTree } from "./tree_walk.ts";
import { LspGateError } from "../errors.ts";

/** Version-control folders: nothing a server loads lives there. */
const VCS = new Set([".git", ".hg", ".svn", ".jj"]);

/**
 * `adapter`, refusing to start for an untrusted root where `find(workspace)` names files: the
 * error says the server `what` (e.g. "would load the vueCompilerOptions.plugins named in").
 */
export function refusingRepositoryCode(
  adapter: Adapter,
  find: (workspace: string) => Promise<string[]>,
  what: string,
): Adapter {
  return {
    ...adapter,
    async resolve(context) {
      const found = context.trusted ? [] : await find(context.workspace);
      if (found.length) {
        // "…": more files than are looked through, which may hold such code.
        const shown = found.map((f) =>
          f.endsWith("…") ? `${f} (too many files to look through)` : f
        );
        throw new LspGateError(
          "SERVER_START_FAILED",
          `${adapter.id} is not started: it ${what} ${shown.join(", ")} (repository code), and ` +
            "the root is not trusted (`--trust` runs it, sandboxed)",
          { server: adapter.id, files: found },
        );
      }
      return await adapter.resolve(context);
    },
  };
}

/**
 * The workspace-relative tsconfig/jsconfig files under `root` whose `vueCompilerOptions.plugins`
 * (their own or through `extends` and `references`, node_modules included) name anything.
 */
export async function vuePluginConfigs(root: string): Promise<string[]> {
  const found: string[] = [];
  const complete = await walk(root, async (path, entry) => {
    if (!entry.isFile || !/^[jt]sconfig.*\.json$/.test(entry.name)) return;
    if (await namesVuePlugins(root, join(root, path), new Set())) found.push(path);
  });
  return complete ? found.sort() : [...found.sort(), "…"];
}

/** Whether the config at `path` (or one it extends or references) names Vue plugins. */
async function namesVuePlugins(root: string, path: string, seen: Set<string>): Promise<boolean> {
  if (seen.has(path) || seen.size > 32) return seen.size > 32;
  seen.add(path);
  const text = await readSmall(path);
  if (text === undefined) return false;
  // Leniently, as TypeScript reads it: a config it cannot parse but that mentions the key counts.
  const config = await parseJsonc(text) as TsconfigFields | null | undefined;
  if (config === undefined || config === null || typeof config !== "object") {
    return text.includes("vueCompilerOptions");
  }
  const plugins = config.vueCompilerOptions?.plugins;
  if (Array.isArray(plugins) ? plugins.length > 0 : plugins !== undefined) return true;
  const extended = [config.extends ?? []].flat();
  const referenced = Array.isArray(config.references)
    ? config.references.map((r: { path?: unknown }) => r?.path)
    : [];
  for (const spec of [...extended, ...referenced]) {
    if (typeof spec !== "string") continue;
    const next = await resolveConfig(root, dirname(path), spec);
    if (next === "unknown" || (next && await namesVuePlugins(root, next, seen))) return true;
  }
  return false;
}

/** The fields of a tsconfig read here, as loosely as TypeScript reads them. */
interface TsconfigFields {
  vueCompilerOptions?: { plugins?: unknown };
  extends?: unknown;
  references?: unknown;
}

/**
 * The file an `extends` or `references` names, inside `root` (one outside is not the
 * repository's), as TypeScript finds it; "unknown" for a package of the repository's whose config
 * cannot be told apart (e.g. through `exports`) and that mentions vueCompilerOptions somewhere.
 */
async function resolveConfig(
  root: string,
  from: string,
  spec: string,
): Promise<string | undefined | "unknown"> {
  const inside = (p: string) =>
    !relative(root, p).startsWith("..") && !isAbsolute(relative(root, p));
  const candidates = (p: string) => [p, `${p}.json`, join(p, "tsconfig.json")];
  if (spec.startsWith(".") || isAbsolute(spec)) {
    const base = isAbsolute(spec) ? spec : join(from, spec);
    if (!inside(base)) return undefined;
    return await firstFile(candidates(base));
  }
  const name = spec.split("/").slice(0, spec.startsWith("@") ? 2 : 1).join("/");
  for (let dir = from; inside(dir); dir = dirname(dir)) {
    const pkg = join(dir, "node_modules", name);
    const direct = await firstFile(candidates(join(dir, "node_modules", spec)));
    if (direct) return direct;
    const field = name === spec ? await tsconfigField(pkg) : undefined;
    if (field) return await firstFile(candidates(join(pkg, field)));
    if (await isDir(pkg)) return await mentions(pkg, "vueCompilerOptions") ? "unknown" : undefined;
    if (dir === root) break;
  }
  return undefined;
}

/**
 * What astro-ls would run of `root`'s (workspace-relative): `@astrojs/svelte` / `@astrojs/vue`
 * packages in any node_modules (their editor modules), `prettier` and `prettier-plugin-astro` in
 * a node_modules beside a project, and prettier configs that are code or name code.
 */
export async function astroProjectCode(root: string): Promise<string[]> {
  const found: string[] = [];
  let budget = MAX_WALKED_ENTRIES;
  const complete = await walk(root, async (path, entry) => {
    if (entry.isDirectory && entry.name === "node_modules") {
      const packages = await astroPackages(join(root, path), true, () => --budget > 0);
      if (packages === undefined) found.push(`${path}/…`);
      else found.push(...packages.map((p) => `${path}/${p}`));
    } else if (entry.isFile && await prettierRunsCode(join(root, path), entry.name)) {
      found.push(path);
    }
  });
  return complete && budget > 0 ? found.sort() : [...found.sort(), "…"];
}

/** The integration and prettier packages astro-ls would load from one node_modules folder. */
async function astroPackages(
  folder: string,
  top: boolean,
  more: () => boolean,
): Promise<string[] | undefined> {
  const wanted = top
    ? ["@astrojs/svelte", "@astrojs/vue", "prettier", "prettier-plugin-astro"]
    : ["@astrojs/svelte", "@astrojs/vue"];
  const found: string[] = [];
  // Every package's own node_modules (npm's nested copies, pnpm's .pnpm store) is looked in too:
  // a .svelte file shipped in a package resolves the integration from beside it.
  const nested: [string, string][] = [];
  for (const name of await names(folder)) {
    if (!more()) return undefined;
    if (name === ".pnpm") {
      for (const store of await names(join(folder, name))) {
        nested.push([`${name}/${store}/node_modules`, join(folder, name, store, "node_modules")]);
      }
    } else if (name.startsWith("@")) {
      for (const sub of await names(join(folder, name))) {
        if (wanted.includes(`${name}/${sub}`)) found.push(`${name}/${sub}`);
        nested.push([`${name}/${sub}/node_modules`, join(folder, name, sub, "node_modules")]);
      }
    } else if (!name.startsWith(".")) {
      if (wanted.includes(name)) found.push(name);
      nested.push([`${name}/node_modules`, join(folder, name, "node_modules")]);
    }
  }
  for (const [rel, path] of nested) {
    if (!(await isDir(path))) continue;
    const inner = await astroPackages(path, false, more);
    if (inner === undefined) return undefined;
    found.push(...inner.map((p) => `${rel}/${p}`));
  }
  return found;
}

/** Prettier configs that are code (JS/TS), and data configs that name plugins or a shared config. */
async function prettierRunsCode(path: string, name: string): Promise<boolean> {
  if (/^(\.prettierrc|prettier\.config)\.[cm]?[jt]s$/.test(name)) return true;
  if (/^\.prettierrc(\.(json5?|ya?ml|toml))?$/.test(name)) {
    const text = await readSmall(path);
    if (text === undefined) return false;
    // A bare string (no key anywhere) names a shared config package, which prettier imports.
    const trimmed = text.replace(/^\s*(#|\/\/).*$/gm, "").trim();
    return text.includes("plugins") ||
      (trimmed !== "" && !trimmed.startsWith("{") && !/[:=]/.test(trimmed));
  }
  if (name === "package.json" || name === "package.yaml") {
    const text = await readSmall(path);
    if (text === undefined || !text.includes("prettier")) return false;
    if (name === "package.yaml") return /^prettier\s*:/m.test(text);
    const prettier = (await parseJsonc(text) as { prettier?: unknown } | undefined)?.prettier;
    return typeof prettier === "string" || JSON.stringify(prettier ?? "").includes("plugins");
  }
  return false;
}

/** Walks `root` (not VCS data; node_modules is seen but not entered); false past the bound. */
function walk(
  root: string,
  visit: (path: string, entry: Deno.DirEntry) => Promise<void>,
): Promise<boolean> {
  return walkTree(root, visit, (entry) => entry.name !== "node_modules" && !VCS.has(entry.name));
}

/** Whether any JSON file within two levels of `dir` mentions `word`. */
async function mentions(dir: string, word: string, depth = 2): Promise<boolean> {
  for (const name of await names(dir)) {
    const path = join(dir, name);
    if (name.endsWith(".json") && (await readSmall(path))?.includes(word)) return true;
    if (depth > 0 && name !== "node_modules" && await isDir(path)) {
      if (await mentions(path, word, depth - 1)) return true;
    }
  }
  return false;
}

async function tsconfigField(pkg: string): Promise<string | undefined> {
  const text = await readSmall(join(pkg, "package.json"));
  const field = text === undefined
    ? undefined
    : (await parseJsonc(text) as { tsconfig?: unknown } | undefined)?.tsconfig;
  return typeof field === "string" ? field : undefined;
}

async function firstFile(paths: string[]): Promise<string | undefined> {
  for (const path of paths) {
    try {
      if ((await Deno.stat(path)).isFile) return path;
    } catch {
      // not this one
    }
  }
  return undefined;
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

async function names(dir: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
  } catch {
    return [];
  }
}

/** A small file's text (a config); undefined when missing, unreadable or over 1 MB. */
async function readSmall(path: string): Promise<string | undefined> {
  try {
    if ((await Deno.stat(path)).size > 1_000_000) return undefined;
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}
