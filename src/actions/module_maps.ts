// The names a JavaScript/TypeScript project maps to files, as its configs say: tsconfig/jsconfig
// `baseUrl` and `paths` (their own, the configs they `extend`, and for a solution-style config the
// projects it `references`), and Deno's import map (deno.json `imports`, or its `importMap` file).
// Each config is read through the workspace boundary: one outside it is not read.
import { dirname, join } from "../posix_path.ts";
import { parseJsonc } from "../jsonc.ts";
import type { WorkspacePath, WorkspaceRoot } from "../permissions/workspace.ts";

/** Where a folder's files look non-relative names up, absolute; tried in order. */
export interface ModuleMap {
  /** Name patterns (exact, one `*`, or a Deno prefix ending in `/` turned into `prefix*`). */
  paths: [string, string[]][];
  /** Folders a name is looked up in (`baseUrl`). */
  baseUrls: string[];
}

/** A JSON config: a path and its parsed object. */
export type ReadJson = (path: string) => Promise<Record<string, unknown> | undefined>;

const PROJECT_CONFIGS = ["tsconfig.json", "jsconfig.json"];
const DENO_CONFIGS = ["deno.json", "deno.jsonc"];
const MAX_CONFIG_BYTES = 1024 * 1024;
/** A mapped target that is no file path (`npm:zod@4`, `jsr:…`, `https://…`). */
const NOT_A_PATH = /^[a-z][a-z0-9+.-]+:/i;

/** A JSONC reader through the workspace boundary that remembers what it read (one per what-if). */
export function jsonReader(workspace: WorkspaceRoot): ReadJson {
  const read = new Map<string, Promise<Record<string, unknown> | undefined>>();
  return (path) => {
    let known = read.get(path);
    if (!known) {
      known = readInside(workspace, path).then(async (text) => {
        if (text === undefined) return undefined;
        const value: unknown = await parseJsonc(text);
        return value && typeof value === "object" && !Array.isArray(value)
          ? value as Record<string, unknown>
          : undefined;
      });
      read.set(path, known);
    }
    return known;
  };
}

/** A file's text, read only when it lies inside the workspace (links followed); else undefined. */
export async function readInside(
  workspace: WorkspaceRoot,
  path: string,
): Promise<string | undefined> {
  try {
    const real: WorkspacePath = await workspace.resolve(path);
    return await workspace.readText(real, { maxBytes: MAX_CONFIG_BYTES });
  } catch {
    return undefined;
  }
}

/** The module maps in force for each folder, from its nearest configs up to the root. */
export class ModuleMaps {
  readonly #workspace: WorkspaceRoot;
  readonly #read: ReadJson;
  readonly #maps = new Map<string, Promise<ModuleMap>>();

  /** Reads configs with `read` (see jsonReader()). */
  constructor(workspace: WorkspaceRoot, read: ReadJson) {
    this.#workspace = workspace;
    this.#read = read;
  }

  /** The map for files in `folder`: its nearest tsconfig/jsconfig's, then each deno.json above. */
  forFolder(folder: string): Promise<ModuleMap> {
    return this.#walk(folder, true);
  }

  #walk(folder: string, wantProject: boolean): Promise<ModuleMap> {
    const key = `${wantProject}\0${folder}`;
    let map = this.#maps.get(key);
    if (!map) {
      map = (async () => {
        const here: ModuleMap = { paths: [], baseUrls: [] };
        let found = false;
        if (wantProject) {
          for (const name of PROJECT_CONFIGS) {
            const path = join(folder, name);
            const config = await this.#read(path);
            if (!config) continue;
            add(here, await this.#project(path, config, new Set([path])));
            found = true;
            break;
          }
        }
        for (const name of DENO_CONFIGS) {
          const path = join(folder, name);
          const config = await this.#read(path);
          if (config) add(here, await this.#deno(path, config));
        }
        const up = dirname(folder);
        if (folder === this.#workspace.path || up === folder || !this.#workspace.isInside(up)) {
          return here;
        }
        add(here, await this.#walk(up, wantProject && !found));
        return here;
      })();
      this.#maps.set(key, map);
    }
    return map;
  }

  /** A tsconfig's baseUrl and paths, its own over those it extends, then its references'. */
  async #project(
    path: string,
    config: Record<string, unknown>,
    seen: Set<string>,
  ): Promise<ModuleMap> {
    let baseUrl: string | undefined;
    let paths: [string, string[]][] | undefined;
    const folder = dirname(path);
    const bases = typeof config.extends === "string" ? [config.extends] : strings(config.extends);
    for (const base of bases ?? []) {
      const basePath = await this.#extendsPath(folder, base);
      const baseConfig = basePath && !seen.has(basePath) ? await this.#read(basePath) : undefined;
      if (!basePath || !baseConfig) continue;
      seen.add(basePath);
      const inherited = await this.#project(basePath, { ...baseConfig, references: [] }, seen);
      baseUrl = inherited.baseUrls[0] ?? baseUrl;
      if (inherited.paths.length) paths = inherited.paths;
    }
    const options = config.compilerOptions as Record<string, unknown> | undefined;
    if (typeof options?.baseUrl === "string") baseUrl = join(folder, options.baseUrl);
    const own = options?.paths;
    if (own && typeof own === "object" && !Array.isArray(own)) {
      // Targets are relative to baseUrl when there is one, else to the config that has them.
      const from = baseUrl ?? folder;
      paths = Object.entries(own).map((
        [pattern, targets],
      ) => [pattern, (strings(targets) ?? []).map((t) => join(from, t))]);
    }
    const map: ModuleMap = { paths: paths ?? [], baseUrls: baseUrl ? [baseUrl] : [] };
    // A solution-style config (`"files": []` and `references`, as Vite's templates write) holds
    // no options of its own: its projects' maps are the ones its files are checked with.
    for (const reference of Array.isArray(config.references) ? config.references : []) {
      const target = (reference as { path?: unknown })?.path;
      if (typeof target !== "string") continue;
      const file = target.endsWith(".json")
        ? join(folder, target)
        : join(folder, target, "tsconfig.json");
      const referenced = seen.has(file) ? undefined : await this.#read(file);
      if (!referenced) continue;
      seen.add(file);
      add(map, await this.#project(file, referenced, seen));
    }
    return map;
  }

  /** The file an `extends` names: a path from the config's folder, or a package in node_modules. */
  async #extendsPath(folder: string, base: string): Promise<string | undefined> {
    const tries = (path: string) => [path, `${path}.json`, join(path, "tsconfig.json")];
    if (base.startsWith(".") || base.startsWith("/")) {
      return await this.#firstReadable(tries(join(folder, base)));
    }
    for (let dir = folder;; dir = dirname(dir)) {
      const found = await this.#firstReadable(tries(join(dir, "node_modules", base)));
      if (found) return found;
      if (dir === this.#workspace.path || !this.#workspace.isInside(dirname(dir))) return undefined;
    }
  }

  async #firstReadable(paths: string[]): Promise<string | undefined> {
    for (const path of paths) if (await this.#read(path)) return path;
    return undefined;
  }

  /** A deno.json's import map: its `imports`, else the `importMap` file's. */
  async #deno(path: string, config: Record<string, unknown>): Promise<ModuleMap> {
    let imports = config.imports;
    let from = dirname(path);
    if (imports === undefined && typeof config.importMap === "string") {
      const file = join(from, config.importMap);
      imports = (await this.#read(file))?.imports;
      from = dirname(file);
    }
    const map: ModuleMap = { paths: [], baseUrls: [] };
    if (!imports || typeof imports !== "object" || Array.isArray(imports)) return map;
    for (const [key, value] of Object.entries(imports)) {
      if (typeof value !== "string") continue;
      const target = NOT_A_PATH.test(value) ? value : join(from, value);
      const prefix = key.endsWith("/") && value.endsWith("/");
      // join() keeps a trailing "/": a prefix maps `key` + rest to `target` + rest.
      map.paths.push(prefix ? [`${key}*`, [`${target}*`]] : [key, [target]]);
    }
    return map;
  }
}

/** Whether a mapped target is no file path but a package or URL (`npm:zod`, `jsr:…`). */
export function notAPath(target: string): boolean {
  return NOT_A_PATH.test(target);
}

/**
 * The targets a package.json `exports` (or `imports`) field gives `subpath` (`.`, `./x`, `#x`),
 * every condition's; undefined when there is no such field, [] when it does not export it.
 */
export function packageTargets(field: unknown, subpath: string): string[] | undefined {
  if (field === undefined || field === null) return undefined;
  const conditions = typeof field !== "object" || Array.isArray(field) ||
    !Object.keys(field).some((k) => k.startsWith(".") || k.startsWith("#"));
  const map = (conditions ? { ".": field } : field) as Record<string, unknown>;
  if (subpath in map) return leaves(map[subpath]);
  for (const [key, value] of Object.entries(map)) {
    const star = key.indexOf("*");
    if (star < 0) continue;
    const [pre, post] = [key.slice(0, star), key.slice(star + 1)];
    if (
      subpath.startsWith(pre) && subpath.endsWith(post) &&
      subpath.length >= pre.length + post.length
    ) {
      const captured = subpath.slice(pre.length, subpath.length - post.length);
      return leaves(value).map((t) => t.replaceAll("*", captured));
    }
  }
  return [];
}

/** A package's entry for its bare name without `exports`: its type, module and main fields. */
export function mainFields(json: Record<string, unknown>): string[] {
  const named = ["types", "typings", "module", "main"].map((k) => json[k])
    .filter((v): v is string => typeof v === "string");
  return [...named, "index"];
}

function leaves(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value && typeof value === "object") return Object.values(value).flatMap(leaves);
  return [];
}

function add(into: ModuleMap, more: ModuleMap): void {
  into.paths.push(...more.paths);
  into.baseUrls.push(...more.baseUrls);
}

/** The strings of a JSON array; undefined for anything else. */
export function strings(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((item): item is string => typeof item === "string");
}
