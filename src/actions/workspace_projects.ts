// The projects a workspace-wide question asks, one per (adapter, root), found by one walk of the
// workspace and remembered while the watcher follows the disk.
import { dirname, extname, join } from "../posix_path.ts";
import type { WorkspacePath, WorkspaceRoot } from "../permissions/workspace.ts";
import type { Adapter } from "../servers/adapter.ts";
import type { ServerManager } from "../servers/manager.ts";
import { configIncludes, type IncludeCheck, PROJECT_CONFIGS } from "./config_includes.ts";
import type { ActionContext } from "./types.ts";
import { compareText } from "../compare.ts";

/** One (adapter, root) project and the file opened to start its server and load it. */
export interface WorkspaceProject {
  /** `adapter@root`, as the manager keys its servers. */
  key: string;
  adapter: Adapter;
  root: string;
  opener: WorkspacePath;
  /** Every file of the project the walk found, by path (what its server could analyse). */
  files: WorkspacePath[];
}

/** The projects, in adapter order then path order, and whether the walk stopped early. */
export interface ProjectList {
  projects: WorkspaceProject[];
  truncated: boolean;
  /** The walk's files of EMBEDDING formats, sorted, whatever serves them. */
  embedded: WorkspacePath[];
}

/**
 * Formats whose files embed code of a language served apart (a component's `<script lang="ts">`,
 * a notebook's Python cells): the servers of that language do not search them.
 */
export const EMBEDDING: ReadonlySet<string> = new Set([".vue", ".svelte", ".astro", ".ipynb"]);

/** Most files one walk looks at; `truncated` says when there were more. */
export const FILES_SCANNED = 50_000;
const PICKS_AT_ONCE = 16;

const remembered = new WeakMap<ServerManager, ProjectMemory>();

/**
 * The workspace's projects. Remembered per manager while the watcher follows the disk, until a
 * file is created or deleted, a root marker or project config is edited, or changes are lost;
 * found afresh on every call when nothing follows the disk.
 */
export function workspaceProjects(context: ActionContext): Promise<ProjectList> {
  const find = () => findProjects(context.workspace, context.manager);
  if ((context.session.changeTracking?.() ?? "off") === "off") return find();
  let memory = remembered.get(context.manager);
  if (!memory) {
    memory = new ProjectMemory(context.manager);
    remembered.set(context.manager, memory);
  }
  return memory.get(find);
}

/** Forgets the remembered projects (e.g. a remembered opener is gone). */
export function forgetProjects(manager: ServerManager): void {
  remembered.get(manager)?.forget();
}

class ProjectMemory {
  #list?: Promise<ProjectList>;
  readonly #decisive: ReadonlySet<string>;

  constructor(manager: ServerManager) {
    this.#decisive = new Set([
      ...manager.options.adapters.flatMap((a) => a.rootMarkers),
      ...PROJECT_CONFIGS,
    ]);
    manager.onChanges((changes) => {
      // An edit to a source file changes no project; anything else may (a folder moved counts).
      if (changes === "lost" || changes.some((c) => c.type !== 2 || this.#isDecisive(c.path))) {
        this.forget();
      }
    });
  }

  get(find: () => Promise<ProjectList>): Promise<ProjectList> {
    if (this.#list) return this.#list;
    const list = find();
    this.#list = list;
    list.catch(() => {
      if (this.#list === list) this.#list = undefined;
    });
    return list;
  }

  forget(): void {
    // A walk still running keeps its answer for those waiting on it; the next call walks again.
    this.#list = undefined;
  }

  #isDecisive(path: string): boolean {
    return this.#decisive.has(path.slice(path.lastIndexOf("/") + 1));
  }
}

/**
 * Walks the workspace once (heavy folders skipped, symlinks only to real paths inside it), asks
 * the manager which server serves each folder's files of each extension, and picks for each
 * (adapter, root) the file that opens it (see `chooseOpener`).
 */
export async function findProjects(
  workspace: WorkspaceRoot,
  manager: ServerManager,
): Promise<ProjectList> {
  // Code only: not linters, and not servers of configuration data (JSON, YAML), which offer no
  // workspace symbols and would only be started to say so.
  const adapters = manager.options.adapters.filter((a) =>
    a.kind !== "linter" && a.workspaceDiagnostics !== false
  );
  const extensions = new Set(
    adapters.flatMap((a) => Object.keys(a.languages).map((e) => e.toLowerCase())),
  );
  const found = await workspace.glob("**/*", { limit: FILES_SCANNED });
  // The server choice depends on a file's folder and extension only: one pick per pair.
  const groups = new Map<string, WorkspacePath[]>();
  const embedded: WorkspacePath[] = [];
  for (const file of found.paths) {
    const extension = extname(file).toLowerCase();
    if (EMBEDDING.has(extension)) embedded.push(file);
    if (!extensions.has(extension)) continue;
    const key = `${dirname(file)}\u0000${extension}`;
    const group = groups.get(key);
    if (group) group.push(file);
    else groups.set(key, [file]);
  }
  const picks = await mapLimited([...groups.values()], PICKS_AT_ONCE, (g) => manager.pick(g[0]));
  const byKey = new Map<string, { adapter: Adapter; root: string; files: WorkspacePath[] }>();
  [...groups.values()].forEach((files, i) => {
    const pick = picks[i];
    if (!pick) return;
    const key = `${pick.adapter.id}@${pick.root}`;
    const project = byKey.get(key);
    if (project) project.files.push(...files);
    else byKey.set(key, { adapter: pick.adapter, root: pick.root, files: [...files] });
  });
  const order = (a: Adapter) => manager.options.adapters.indexOf(a);
  const projects = await Promise.all(
    [...byKey.entries()].map(async ([key, { adapter, root, files }]) => {
      files.sort();
      const includes = await readIncludes(workspace, root);
      return { key, adapter, root, opener: chooseOpener(adapter, root, files, includes), files };
    }),
  );
  // The walk's order within an adapter: its first files' folders first, as before.
  const first = new Map([...byKey].map(([key, p]) => [key, p.files[0]]));
  projects.sort((a, b) =>
    order(a.adapter) - order(b.adapter) || compareText(first.get(a.key)!, first.get(b.key)!)
  );
  return { projects, truncated: found.truncated, embedded };
}

/**
 * The file that opens a project, so that its server loads the project where the code is: first
 * a file its config includes (tsserver loads a tsconfig's project only for a file the config
 * lists), then one in the top folder holding most of the project's files (src/, not a config
 * script beside it such as vite.config.ts), then one of the adapter's first-listed languages
 * (.ts before .js), then the first by path.
 */
export function chooseOpener<T extends string>(
  adapter: Adapter,
  root: string,
  files: readonly T[],
  includes?: IncludeCheck,
): T {
  const order = Object.keys(adapter.languages).map((e) => e.toLowerCase());
  const facts = new Map(files.map((file) => {
    const rel = file.startsWith(root + "/") ? file.slice(root.length + 1) : undefined;
    const at = order.indexOf(extname(file).toLowerCase());
    return [file, {
      included: rel !== undefined && includes !== undefined && includes(rel),
      top: rel?.includes("/") ? rel.slice(0, rel.indexOf("/")) : "",
      rank: at === -1 ? order.length : at,
    }];
  }));
  const sizes = new Map<string, number>();
  for (const { top } of facts.values()) sizes.set(top, (sizes.get(top) ?? 0) + 1);
  const ordered = [...files].sort((a, b) => {
    const x = facts.get(a)!, y = facts.get(b)!;
    return Number(y.included) - Number(x.included) ||
      sizes.get(y.top)! - sizes.get(x.top)! ||
      x.rank - y.rank ||
      (a < b ? -1 : a > b ? 1 : 0);
  });
  return ordered[0];
}

/** The include check of the root's tsconfig.json or jsconfig.json, read through the boundary. */
async function readIncludes(
  workspace: WorkspaceRoot,
  root: string,
): Promise<IncludeCheck | undefined> {
  for (const name of PROJECT_CONFIGS) {
    let text: string;
    try {
      text = await workspace.readText(await workspace.resolve(join(root, name)));
    } catch {
      // Missing, unreadable or outside: tsserver would not use it either.
      continue;
    }
    return await configIncludes(text);
  }
  return undefined;
}

/** `fn` over `items`, at most `limit` at a time, results in order. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
