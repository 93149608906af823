import { dirname, extname, join } from "node:path";
import type { Adapter } from "./adapter.ts";
import { pathExists } from "../fs.ts";

/** The adapter chosen for a file, the project root it serves, and the file's language id. */
export interface Pick {
  adapter: Adapter;
  root: string;
  languageId: string;
}

/**
 * Picks the adapter for a file: among adapters that handle its extension, the one whose root
 * marker is nearest to the file wins (ties: higher priority); with no marker at all, the
 * highest-priority adapter serves the workspace root.
 */
export async function pickAdapter(
  file: string,
  workspace: string,
  adapters: readonly Adapter[],
): Promise<Pick | undefined> {
  const extension = extname(file).toLowerCase();
  const candidates = adapters.filter((adapter) =>
    extension in adapter.languages && adapter.kind !== "linter"
  );
  if (candidates.length === 0) return undefined;
  let best: { adapter: Adapter; root: string; depth: number } | undefined;
  for (const adapter of candidates) {
    const root = await nearestMarker(dirname(file), workspace, adapter.rootMarkers);
    const depth = root === undefined ? -1 : root.split("/").length;
    const better = !best || depth > best.depth ||
      (depth === best.depth && adapter.priority > best.adapter.priority);
    if (better) best = { adapter, root: root ?? workspace, depth };
  }
  if (!best) return undefined;
  return { adapter: best.adapter, root: best.root, languageId: best.adapter.languages[extension] };
}

/**
 * The linter servers for a file: each linter adapter that handles its extension and whose marker
 * (its config file, e.g. biome.json) is found above it. A linter is never a fallback.
 */
export async function pickLinters(
  file: string,
  workspace: string,
  adapters: readonly Adapter[],
): Promise<Pick[]> {
  const extension = extname(file).toLowerCase();
  const picks: Pick[] = [];
  for (const adapter of adapters) {
    if (adapter.kind !== "linter" || !(extension in adapter.languages)) continue;
    const root = await nearestMarker(dirname(file), workspace, adapter.rootMarkers);
    if (root !== undefined) picks.push({ adapter, root, languageId: adapter.languages[extension] });
  }
  return picks;
}

/** The nearest folder from `dir` up to `workspace` that holds one of `markers`. */
export async function nearestMarker(
  dir: string,
  workspace: string,
  markers: readonly string[],
): Promise<string | undefined> {
  for (let current = dir;; current = dirname(current)) {
    for (const marker of markers) {
      if (await pathExists(join(current, marker))) return current;
    }
    if (current === workspace || current === dirname(current) || !current.startsWith(workspace)) {
      return undefined;
    }
  }
}
