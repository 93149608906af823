// Texts of files read through the workspace boundary, kept across requests, so a question asked
// again (a workspace symbol search names the same files each time) does not read them again.
import { TextLines } from "../lsp/text_lines.ts";
import type { WorkspaceRoot } from "../permissions/workspace.ts";
import type { ChangeListener, ServerManager } from "../servers/manager.ts";
import { fromFileUrl, toFileUrl } from "../servers/uri.ts";
import { LspGateError } from "../errors.ts";

/** Most files kept, and most characters in all (larger files are read, never kept). */
const MAX_FILES = 256;
const MAX_CHARS = 8 * 1024 * 1024;
const MAX_FILE_CHARS = 1024 * 1024;

interface Kept {
  lines: TextLines;
  /** The real path read. */
  path: string;
  /** The file's identity and state when it was read: any difference means read again. */
  dev: number;
  ino: number | null;
  mtime: number | undefined;
  ctime: number | undefined;
  size: number;
}

const caches = new WeakMap<ServerManager, TextCache>();

/**
 * The lines of server-given URIs, read through the workspace boundary and kept until the watcher
 * reports the file changed, and only while its identity and state (device, inode, size, times)
 * stay the same: the stat catches what a watcher missed, the watcher a rewrite the stat cannot see
 * (same size, mtime put back). What it returns was always read through the boundary: a path that
 * now leads elsewhere (a symlink swapped in) is another inode, so it is read (or refused) afresh.
 */
export class TextCache {
  readonly #kept = new Map<string, Kept>();
  /**
   * URIs inside the workspace found to name no file: a config file a coverage hook looks for on
   * every question (pyright's pyrightconfig.json; 0.5 ms a question to learn it is missing again).
   * Trusted only while a stat still finds nothing there.
   */
  readonly #missing = new Set<string>();
  #chars = 0;
  /** Counts the watcher's reports: a read that overlapped one is not kept. */
  #reports = 0;

  /** A cache over `workspace`'s boundary, told of changes by `changes` (the manager) if given. */
  constructor(
    readonly workspace: WorkspaceRoot,
    changes?: { onChanges(listener: ChangeListener): () => void },
  ) {
    changes?.onChanges((batch) => {
      this.#reports++;
      if (batch === "lost") return this.#clear();
      const paths = new Set(batch.map((c) => c.path));
      for (const [uri, kept] of this.#kept) if (paths.has(kept.path)) this.#drop(uri);
      for (const path of paths) this.#missing.delete(toFileUrl(path));
    });
  }

  /** The cache shared by every request of one manager (one workspace). */
  static of(context: { workspace: WorkspaceRoot; manager: ServerManager }): TextCache {
    let cache = caches.get(context.manager);
    if (!cache) {
      cache = new TextCache(context.workspace, context.manager);
      caches.set(context.manager, cache);
    }
    return cache;
  }

  /** The lines of a `file://` URI, or undefined when it is outside the readable roots or gone. */
  async linesOf(uri: string): Promise<TextLines | undefined> {
    if (this.#missing.has(uri)) {
      const path = fromFileUrl(uri);
      if (path !== undefined && statOf(path) === undefined) return undefined;
      this.#missing.delete(uri);
    }
    const kept = this.#kept.get(uri);
    if (kept) {
      const path = fromFileUrl(uri);
      const now = path === undefined ? undefined : statOf(path);
      if (now && sameState(kept, now)) {
        // Most recently used last: the first entry is the one to drop.
        this.#kept.delete(uri);
        this.#kept.set(uri, kept);
        return kept.lines;
      }
      this.#drop(uri);
    }
    const reports = this.#reports;
    try {
      const path = await this.workspace.resolveUri(uri);
      // Stat before reading: a write in between shows as a change the next time.
      const info = Deno.statSync(path);
      const lines = new TextLines(await this.workspace.readText(path));
      if (reports === this.#reports) this.#keep(uri, path, lines, info);
      return lines;
    } catch (error) {
      // Outside the workspace (a library, a hostile server's answer) or deleted: no text.
      // Only a path under the root: one outside is never looked at again by this cache's stat.
      const missing = error instanceof LspGateError && error.code === "FILE_NOT_FOUND" &&
        fromFileUrl(uri)?.startsWith(this.workspace.path + "/") === true;
      if (missing && reports === this.#reports) this.#noteMissing(uri);
      return undefined;
    }
  }

  #keep(uri: string, path: string, lines: TextLines, info: Deno.FileInfo): void {
    // Without an inode number a file's identity cannot be checked: such a file is not kept.
    if (lines.text.length > MAX_FILE_CHARS || info.ino === null) return;
    this.#drop(uri);
    this.#kept.set(uri, {
      lines,
      path,
      dev: info.dev,
      ino: info.ino,
      mtime: info.mtime?.getTime(),
      ctime: info.ctime?.getTime(),
      size: info.size,
    });
    this.#chars += lines.text.length;
    for (const [oldest, entry] of this.#kept) {
      if (this.#kept.size <= MAX_FILES && this.#chars <= MAX_CHARS) break;
      this.#kept.delete(oldest);
      this.#chars -= entry.lines.text.length;
    }
  }

  #noteMissing(uri: string): void {
    // A server naming many files that are not there must not grow it without end.
    if (this.#missing.size >= MAX_FILES) this.#missing.clear();
    this.#missing.add(uri);
  }

  #clear(): void {
    this.#missing.clear();
    this.#kept.clear();
    this.#chars = 0;
  }

  #drop(uri: string): void {
    const kept = this.#kept.get(uri);
    if (!kept) return;
    this.#kept.delete(uri);
    this.#chars -= kept.lines.text.length;
  }
}

// In the thread, not on Deno's blocking pool: one per file an answer names, on every answer.
function statOf(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.statSync(path);
  } catch {
    return undefined;
  }
}

function sameState(kept: Kept, now: Deno.FileInfo): boolean {
  return now.isFile && kept.dev === now.dev && kept.ino === now.ino && kept.size === now.size &&
    kept.mtime === now.mtime?.getTime() && kept.ctime === now.ctime?.getTime();
}
