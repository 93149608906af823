// Which adapter serves a file, and which linters apply to it, remembered per file while the
// watcher follows changes: what decides them (root markers, their contents) only changes with a
// file created, deleted, or a marker edited.
import { type Pick, pickAdapter, pickLinters, PickMemo } from "./pick.ts";
import type { ManagerOptions } from "./manager_types.ts";
import type { FileChange } from "./watcher.ts";

const MAX_CACHED_PICKS = 10_000;

/** Adapter choices per file (the server, the linters), kept while the watcher follows changes. */
export class PickCache {
  readonly #picks = new Map<string, Promise<Pick | undefined>>();
  readonly #linterPicks = new Map<string, Promise<Pick[]>>();
  /** Markers and installed servers, shared by the picks of every file (see PickMemo). */
  readonly #memo = new PickMemo();
  readonly #markers: ReadonlySet<string>;

  /** Chooses among `options.adapters` (but the disabled ones) for `options.workspace`. */
  constructor(readonly options: ManagerOptions) {
    this.#markers = new Set(
      options.adapters.flatMap((a) => [...a.rootMarkers, ...(a.workspaceMarkers ?? [])]),
    );
  }

  /** The adapter and root for a file, or undefined when no adapter handles its type. */
  pick(file: string): Promise<Pick | undefined> {
    return this.#cached(
      this.#picks,
      file,
      () => pickAdapter(file, this.options.workspace, this.#enabled(), this.#memoIfTracked()),
    );
  }

  /** The linters configured for `file` (see pickLinters). */
  linters(file: string): Promise<Pick[]> {
    return this.#cached(
      this.#linterPicks,
      file,
      () => pickLinters(file, this.options.workspace, this.#enabled(), this.#memoIfTracked()),
    );
  }

  /** Forgets adapter choices a change may have changed: a file created or deleted, a marker edited. */
  forget(changes: readonly FileChange[]): void {
    const decisive = changes.some((c) =>
      c.type !== 2 || this.#markers.has(c.path.slice(c.path.lastIndexOf("/") + 1))
    );
    if (decisive) this.clear();
  }

  /** Forgets every choice (the watcher lost changes). */
  clear(): void {
    this.#picks.clear();
    this.#linterPicks.clear();
    this.#memo.clear();
  }

  /** The memo, only while the watcher follows changes (what tells it when to forget). */
  #memoIfTracked(): PickMemo | undefined {
    return (this.options.changeTracking?.() ?? "off") === "off" ? undefined : this.#memo;
  }

  #enabled() {
    return this.options.adapters.filter((a) => !this.options.serverConfig?.[a.id]?.disabled);
  }

  /** `choose()` for `file`, remembered while the watcher follows changes. */
  #cached<T>(cache: Map<string, Promise<T>>, file: string, choose: () => Promise<T>): Promise<T> {
    if ((this.options.changeTracking?.() ?? "off") === "off") return choose();
    let choice = cache.get(file);
    if (!choice) {
      // A bound on memory for a session that queries very many files.
      if (cache.size >= MAX_CACHED_PICKS) cache.clear();
      choice = choose();
      cache.set(file, choice);
      choice.catch(() => cache.delete(file));
    }
    return choice;
  }
}
