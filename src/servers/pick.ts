import { basename, dirname, extname, join } from "../posix_path.ts";
import type { Adapter } from "./adapter.ts";
import { pathExists } from "../fs.ts";
import { LspGateError } from "../errors.ts";

/** The adapter chosen for a file, the project root it serves, and the file's language id. */
export interface Pick {
  adapter: Adapter;
  root: string;
  languageId: string;
}

/**
 * Throws ACTION_NOT_ALLOWED where `pick`'s adapter must not be asked about `file`: its own rule
 * for an untrusted root (a root under one of `trustedRoots` is asked anything).
 */
export async function refuseFile(
  options: { workspace: string; trustedRoots?: readonly string[] },
  pick: Pick,
  file: string,
): Promise<void> {
  const refuse = pick.adapter.refuseFile;
  if (!refuse) return;
  const trusted = (options.trustedRoots ?? []).some((t) =>
    pick.root === t || pick.root.startsWith(t + "/")
  );
  if (trusted) return;
  const reason = await refuse({ workspace: options.workspace, file });
  if (!reason) return;
  throw new LspGateError(
    "ACTION_NOT_ALLOWED",
    `${pick.adapter.id} is not asked about ${file.slice(options.workspace.length + 1)}: ${reason}`,
    { server: pick.adapter.id },
  );
}

/**
 * What picks for several files share, remembered while the watcher follows changes (the
 * manager clears it when a file is created or deleted or a marker edited, as it forgets picks):
 * whether a marker is there, whether a server is installed. The first query of each new file
 * otherwise looked again for every marker in every folder up to the root, for every server of its
 * language (pygments: ~50 stats and 48 real paths, 5 ms, per file).
 */
export class PickMemo {
  readonly #found = new Map<string, Promise<boolean>>();
  readonly #installed = new Map<Adapter, Promise<boolean>>();

  /** `look()`'s answer for `key`, asked once. */
  found(key: string, look: () => Promise<boolean>): Promise<boolean> {
    let answer = this.#found.get(key);
    if (!answer) this.#found.set(key, answer = look());
    return answer;
  }

  /** Whether `adapter`'s server is installed, asked once. */
  installed(adapter: Adapter, workspace: string): Promise<boolean> {
    let answer = this.#installed.get(adapter);
    if (!answer) {
      this.#installed.set(
        adapter,
        answer = adapter.installed?.({ workspace }) ?? Promise.resolve(true),
      );
    }
    return answer;
  }

  /** Forgets everything (a file created or deleted, a marker edited). */
  clear(): void {
    this.#found.clear();
    this.#installed.clear();
  }
}

/** The language id an adapter gives a file (by whole name first, then extension), if it handles it. */
export function languageIdOf(adapter: Adapter, file: string): string | undefined {
  return adapter.filenames?.[basename(file)] ?? adapter.languages[extname(file).toLowerCase()];
}

/**
 * Picks the adapter for a file: among the language servers that handle it (a `preferred` one
 * only, when there is one), the one whose root marker is nearest to the file wins; ties go to a
 * server that is installed over one that is not, then to the higher priority. With no marker at
 * all, the same order picks a server for the workspace root.
 */
export async function pickAdapter(
  file: string,
  workspace: string,
  adapters: readonly Adapter[],
  memo?: PickMemo,
): Promise<Pick | undefined> {
  let candidates = adapters.filter((adapter) =>
    adapter.kind !== "linter" && languageIdOf(adapter, file) !== undefined
  );
  if (candidates.some((adapter) => adapter.preferred)) {
    candidates = candidates.filter((adapter) => adapter.preferred);
  }
  if (candidates.length === 0) return undefined;
  const placed = await Promise.all(candidates.map(async (adapter) => {
    let root = await nearestMarker(dirname(file), workspace, adapter.rootMarkers, adapter, memo);
    if (root !== undefined && adapter.workspaceMarkers) {
      root = await nearestMarker(root, workspace, adapter.workspaceMarkers, undefined, memo) ??
        root;
    }
    return { adapter, root, depth: root === undefined ? -1 : root.split("/").length };
  }));
  const depth = Math.max(...placed.map((p) => p.depth));
  let nearest = placed.filter((p) => p.depth === depth);
  if (nearest.length > 1 && nearest.some((p) => p.adapter.installed)) {
    const found = await Promise.all(
      nearest.map((p) =>
        memo ? memo.installed(p.adapter, workspace) : p.adapter.installed?.({ workspace }) ?? true
      ),
    );
    if (found.some(Boolean)) nearest = nearest.filter((_, i) => found[i]);
  }
  const best = nearest.reduce((a, b) => b.adapter.priority > a.adapter.priority ? b : a);
  return {
    adapter: best.adapter,
    root: best.root ?? workspace,
    languageId: languageIdOf(best.adapter, file)!,
  };
}

/**
 * The linter servers for a file: each linter adapter that handles it and whose marker (its
 * config file, e.g. biome.json) is found above it. A linter is never a fallback.
 */
export async function pickLinters(
  file: string,
  workspace: string,
  adapters: readonly Adapter[],
  memo?: PickMemo,
): Promise<Pick[]> {
  const picks: Pick[] = [];
  for (const adapter of adapters) {
    const languageId = languageIdOf(adapter, file);
    if (adapter.kind !== "linter" || languageId === undefined) continue;
    const root = await nearestMarker(dirname(file), workspace, adapter.rootMarkers, adapter, memo);
    if (root !== undefined) picks.push({ adapter, root, languageId });
  }
  return picks;
}

/**
 * The language servers a workspace-wide `diagnostics "*"` asks: not linters, not servers of
 * configuration data (`workspaceDiagnostics: false`), and not servers whose binary is missing
 * (a Java file in a repository is no error because jdtls is not installed).
 */
export async function sweepAdapters(
  adapters: readonly Adapter[],
  workspace: string,
): Promise<Adapter[]> {
  const wanted = adapters.filter((a) => a.kind !== "linter" && a.workspaceDiagnostics !== false);
  const found = await Promise.all(wanted.map((a) => a.installed?.({ workspace }) ?? true));
  return wanted.filter((_, i) => found[i]);
}

/** The nearest folder from `dir` up to `workspace` that holds one of `markers`. */
export async function nearestMarker(
  dir: string,
  workspace: string,
  markers: readonly string[],
  adapter?: { rootMarkerContains?: Record<string, string | readonly string[]> },
  memo?: PickMemo,
): Promise<string | undefined> {
  for (let current = dir;; current = dirname(current)) {
    for (const marker of markers) {
      const path = join(current, marker);
      const wanted = adapter?.rootMarkerContains?.[marker];
      const needles = wanted === undefined ? undefined : [wanted].flat();
      const look = () => needles === undefined ? pathExists(path) : fileContains(path, needles);
      const key = `${path}\0${needles?.join("\0") ?? ""}`;
      if (await (memo ? memo.found(key, look) : look())) return current;
    }
    if (current === workspace || current === dirname(current) || !current.startsWith(workspace)) {
      return undefined;
    }
  }
}

const MARKER_READ_LIMIT = 1024 * 1024;

/**
 * Whether a marker file holds one of `needles` (e.g. `[tool.ruff` in pyproject.toml). Only a regular file
 * (not a symlink, a FIFO or a device) of reasonable size is read: a repository cannot make this
 * read something outside it, or hang.
 */
async function fileContains(path: string, needles: readonly string[]): Promise<boolean> {
  try {
    const info = await Deno.lstat(path);
    if (!info.isFile || info.size > MARKER_READ_LIMIT) return false;
    const text = await Deno.readTextFile(path);
    return needles.some((needle) => text.includes(needle));
  } catch {
    return false;
  }
}
