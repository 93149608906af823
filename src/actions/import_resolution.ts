// Which workspace file a non-relative import names, resolved the way the project does where
// lspgate can know it: the project's module maps (module_maps.ts: tsconfig `paths` and `baseUrl`,
// Deno's import map), a workspace package's name (package.json or deno.json `exports`, package.json
// `imports`, `main`), Python's absolute imports from
// the project root, `src/` and the importer's folder. Issue 17: `import { f } from "a"` under
// `"baseUrl": "src"` was not seen as importing src/a.ts, and a what-if called itself complete.
// Every file is read through the workspace boundary: a config or package outside it is not read.
import { dirname, join, normalize } from "../posix_path.ts";
import type { WorkspaceRoot } from "../permissions/workspace.ts";
import {
  jsonReader,
  mainFields,
  ModuleMaps,
  notAPath,
  packageTargets,
  readInside,
  type ReadJson,
  strings,
} from "./module_maps.ts";

/** What a specifier names: a workspace file, something outside it, or nothing lspgate can tell. */
export type Resolution =
  | { kind: "file"; path: string }
  /** A package installed or declared (node_modules, a Node built-in, `declare module`). */
  | { kind: "outside" }
  /** Not found; `within`: the workspace package it names, whose entry could not be found. */
  | { kind: "unresolved"; within?: string };

/** Extensions tsserver tries for an extensionless script import, in its order. */
const SCRIPT_EXTENSIONS = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"];
/** An emitted extension written in an import and the sources tsserver reads for it. */
const SOURCE_FOR: Record<string, string[]> = {
  ".js": [".ts", ".tsx", ".d.ts"],
  ".jsx": [".tsx"],
  ".mjs": [".mts", ".d.mts"],
  ".cjs": [".cts", ".d.cts"],
};
const MAX_PACKAGES = 500;
const MANIFEST = /\/(?:package\.json|deno\.jsonc?)$/;
/**
 * Node's built-in module names, loaded on first use: node:module brings Deno's CommonJS loader,
 * which every session would otherwise pay at start for what only a what-if asks.
 */
let builtins: Promise<ReadonlySet<string>> | undefined;
export function nodeBuiltins(): Promise<ReadonlySet<string>> {
  return builtins ??= import("node:module").then((m) => new Set(m.builtinModules));
}

interface Package {
  dir: string;
  json: Record<string, unknown>;
}

/** Resolves a workspace's non-relative imports; one per what-if, caching what it reads. */
export class ImportResolver {
  readonly #workspace: WorkspaceRoot;
  readonly #files: ReadonlySet<string>;
  readonly #root: string;
  #folders?: Set<string>;
  readonly #maps: ModuleMaps;
  readonly #readJson: ReadJson;
  readonly #installed = new Map<string, Promise<boolean>>();
  #packages?: Promise<Map<string, Package>>;
  #pythonRoots?: Promise<string[]>;

  /**
   * `files`: every file of the workspace, real paths; `root`: the changed file's project root;
   * `ambient`: the modules the project declares.
   */
  constructor(
    workspace: WorkspaceRoot,
    files: ReadonlySet<string>,
    root: string,
    readonly ambient: ReadonlySet<string> = new Set(),
  ) {
    this.#workspace = workspace;
    this.#files = files;
    this.#root = root;
    this.#readJson = jsonReader(workspace);
    this.#maps = new ModuleMaps(workspace, this.#readJson);
  }

  /** What a JavaScript/TypeScript file's non-relative specifier names. */
  async script(importer: string, specifier: string): Promise<Resolution> {
    if (/^[a-z][a-z0-9+.-]+:/i.test(specifier)) return { kind: "outside" };
    const map = await this.#maps.forFolder(dirname(importer));
    const bases: string[] = [];
    for (const [pattern, targets] of map.paths) {
      const star = pattern.indexOf("*");
      const [pre, post] = star < 0
        ? [pattern, ""]
        : [pattern.slice(0, star), pattern.slice(star + 1)];
      const matched = star < 0
        ? specifier === pattern
        : specifier.startsWith(pre) && specifier.endsWith(post) &&
          specifier.length >= pre.length + post.length;
      if (!matched) continue;
      const captured = specifier.slice(pre.length, specifier.length - post.length);
      bases.push(...targets.map((t) => t.replace("*", captured)));
    }
    bases.push(...map.baseUrls.map((url) => join(url, specifier)));
    for (const base of bases) {
      // Mapped to a package or a URL (Deno's `npm:`, `jsr:`): no workspace file.
      if (notAPath(base)) return { kind: "outside" };
      const file = this.scriptFile(base);
      if (file) return { kind: "file", path: file };
    }
    const own = specifier.startsWith("#")
      ? await this.#nearestPackage(dirname(importer))
      : await this.#workspacePackage(specifier);
    if (own) {
      const sub = specifier.startsWith("#") ? specifier : `.${specifier.slice(own.name.length)}`;
      const field = specifier.startsWith("#") ? own.pkg.json.imports : own.pkg.json.exports;
      const targets = packageTargets(field, sub === "." ? "." : sub) ??
        (sub === "." ? mainFields(own.pkg.json) : [sub]);
      for (const target of targets) {
        const file = this.scriptFile(join(own.pkg.dir, target));
        if (file) return { kind: "file", path: file };
      }
      return { kind: "unresolved", within: own.pkg.dir };
    }
    // A project file mapped by the name wins over a Node built-in's declaration (src/path.ts).
    if (this.ambient.has(specifier) || (await nodeBuiltins()).has(specifier)) {
      return { kind: "outside" };
    }
    return { kind: "unresolved" };
  }

  /** Whether `specifier`'s package is in a node_modules above `importer` (inside the root). */
  installed(importer: string, specifier: string): Promise<boolean> {
    const parts = specifier.split("/");
    const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
    const types = `@types/${name.replace(/^@/, "").replace("/", "__")}`;
    return this.#installedFrom(dirname(importer), name, types);
  }

  /** The file a script import's path names (with its extensions, a folder's index), if any. */
  scriptFile(base: string): string | undefined {
    const path = normalize(base).replace(/\/$/, "");
    const extension = /\.[cm]?jsx?$/i.exec(path)?.[0].toLowerCase();
    const tries = [path];
    if (extension) {
      const stem = path.slice(0, -extension.length);
      tries.push(...(SOURCE_FOR[extension] ?? []).map((e) => stem + e));
    }
    tries.push(...SCRIPT_EXTENSIONS.map((e) => path + e));
    tries.push(...SCRIPT_EXTENSIONS.map((e) => `${path}/index${e}`));
    return tries.find((p) => this.#files.has(p));
  }

  /**
   * The files a Python import names: `module` dotted (leading dots: relative to `importer`), and
   * for `from module import a, b` each name that is a submodule. `found` is false when the module
   * is neither a file nor a package folder in any root lspgate knows.
   */
  async python(
    importer: string,
    module: string,
    names: string[] = [],
  ): Promise<{ files: string[]; found: boolean }> {
    const dots = /^\.*/.exec(module)![0].length;
    const parts = module.slice(dots).split(".").filter(Boolean);
    let roots: string[];
    if (dots > 0) {
      let folder = dirname(importer);
      for (let i = 1; i < dots; i++) folder = dirname(folder);
      roots = [folder];
    } else {
      roots = [...await this.#pythonRootsOf(), dirname(importer)];
    }
    for (const root of roots) {
      const path = join(root, ...parts);
      const file = this.#pythonFile(path);
      if (!file && !this.#folder(path)) continue;
      const files = file ? [file] : [];
      for (const name of names) {
        const sub = this.#pythonFile(join(path, name));
        if (sub) files.push(sub);
      }
      return { files, found: true };
    }
    return { files: [], found: false };
  }

  #pythonFile(path: string): string | undefined {
    // pyright reads a stub before its source.
    return [".pyi", ".py", "/__init__.pyi", "/__init__.py"].map((e) => path + e)
      .find((p) => this.#files.has(p));
  }

  #folder(path: string): boolean {
    if (!this.#folders) {
      this.#folders = new Set();
      for (const file of this.#files) {
        for (let d = dirname(file); d.length > this.#workspace.path.length; d = dirname(d)) {
          if (this.#folders.has(d)) break;
          this.#folders.add(d);
        }
      }
    }
    return this.#folders.has(path);
  }

  /** The project root, its `src/`, and `extraPaths` (pyrightconfig.json or pyproject.toml). */
  #pythonRootsOf(): Promise<string[]> {
    this.#pythonRoots ??= (async () => {
      const top = this.#workspace.path;
      const roots = [this.#root, join(this.#root, "src")];
      // The workspace's own root too, when the changed file's project is a folder inside it.
      if (top !== this.#root) roots.push(top, join(top, "src"));
      const config = await this.#readJson(join(this.#root, "pyrightconfig.json"));
      let extra = strings(config?.extraPaths) ?? [];
      const toml = join(this.#root, "pyproject.toml");
      if (extra.length === 0 && this.#files.has(toml)) {
        const text = await this.#read(toml);
        const list = text?.match(/^\s*extraPaths\s*=\s*\[([^\]]*)\]/m)?.[1] ?? "";
        extra = [...list.matchAll(/["']([^"']+)["']/g)].map((m) => m[1]);
      }
      return [...roots, ...extra.map((p) => join(this.#root, p))];
    })();
    return this.#pythonRoots;
  }

  #installedFrom(folder: string, name: string, types: string): Promise<boolean> {
    const key = `${folder}\0${name}`;
    let known = this.#installed.get(key);
    if (!known) {
      known = (async () => {
        for (const candidate of [name, types]) {
          const path = join(folder, "node_modules", candidate);
          const found = await this.#workspace.resolve(path).then(() => true, (error) =>
            // A link that leads out of the root: installed elsewhere, not a workspace file.
            (error as { code?: string }).code === "OUTSIDE_WORKSPACE");
          if (found) return true;
        }
        const up = dirname(folder);
        if (folder === this.#workspace.path || up === folder || !this.#workspace.isInside(up)) {
          return false;
        }
        return await this.#installedFrom(up, name, types);
      })();
      this.#installed.set(key, known);
    }
    return known;
  }

  /** The workspace package (outside node_modules) whose name `specifier` starts with. */
  async #workspacePackage(specifier: string): Promise<{ name: string; pkg: Package } | undefined> {
    const packages = await (this.#packages ??= this.#readPackages());
    const parts = specifier.split("/");
    const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
    const pkg = packages.get(name);
    return pkg ? { name, pkg } : undefined;
  }

  async #nearestPackage(folder: string): Promise<{ name: string; pkg: Package } | undefined> {
    for (let dir = folder; this.#workspace.isInside(dir); dir = dirname(dir)) {
      const json = await this.#readJson(join(dir, "package.json"));
      if (json) return { name: "", pkg: { dir, json } };
      if (dir === this.#workspace.path) break;
    }
    return undefined;
  }

  async #readPackages(): Promise<Map<string, Package>> {
    const packages = new Map<string, Package>();
    // A Deno workspace's members are named packages too (deno.json `name` and `exports`).
    const manifests = [...this.#files].filter((p) => MANIFEST.test(p)).slice(0, MAX_PACKAGES);
    const read = await Promise.all(manifests.map((path) => this.#readJson(path)));
    for (const [i, path] of manifests.entries()) {
      const json = read[i];
      if (typeof json?.name === "string" && !packages.has(json.name)) {
        packages.set(json.name, { dir: dirname(path), json });
      }
    }
    return packages;
  }

  #read(path: string): Promise<string | undefined> {
    return readInside(this.#workspace, path);
  }
}
