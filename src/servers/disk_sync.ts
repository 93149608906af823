// The servers' views of files kept equal to the disk: a file synced before each query (skipped
// when its recorded state still holds), open files other tools changed read again, and the disk
// state marked stale when the watcher reports a change.
import { LspGateError } from "../errors.ts";
import { toFileUrl } from "./uri.ts";
import type { ServerClient } from "../lsp/server_client.ts";
import { languageIdOf, type Pick } from "./pick.ts";
import type { DocumentLocks } from "./document_locks.ts";
import type { FileChange } from "./watcher.ts";
import { isWatched } from "./watched.ts";
import type { ManagerOptions, ServerEntry } from "./manager_types.ts";

const MAX_OPENED_ON_CHANGE = 16;
/** Longest wait for a server to check the files created and opened in it (openCreatedFiles). */
const CREATED_CHECK_MS = 3000;

/** The largest file handed to a server: above sqlite3.c's 9 MB, below what stalls lspgate long. */
export const MAX_SERVED_BYTES = 16 * 2 ** 20;

/** Syncs files from the disk into servers, and knows when a recorded disk state still holds. */
export class DiskSync {
  /** `pick` says which server a file belongs to; `locks` which files an overlay holds. */
  constructor(
    readonly options: ManagerOptions,
    readonly locks: DocumentLocks,
    readonly pick: (file: string) => Promise<Pick | undefined>,
  ) {}

  /** Makes the server's view of `file` equal the disk; returns its URI and text. */
  async syncFile(
    entry: ServerEntry,
    client: ServerClient,
    file: string,
    languageId?: string,
  ): Promise<{ uri: string; text: string }> {
    const uri = toFileUrl(file);
    // stat before reading: a write in between then shows as a change on the next query. A stat
    // (never an open: a FIFO cannot block it) in the thread, not a hop to Deno's blocking pool:
    // a few microseconds where the hop costs tens, on every query.
    const stat = Deno.statSync(file);
    if (stat.size > MAX_SERVED_BYTES) {
      // Read, encoded and written on this thread: a 50 MB one-line file held every other request
      // (and the reading of the next lines) back for seconds, and pyright took 2.4 GB over it.
      throw new LspGateError(
        "INVALID_INPUT",
        `the file is ${(stat.size / 2 ** 20).toFixed(1)} MiB; lspgate hands a language server ` +
          `files of at most ${MAX_SERVED_BYTES / 2 ** 20} MiB (generated code or data?)`,
        { size: stat.size, max: MAX_SERVED_BYTES },
      );
    }
    const mtime = stat.mtime?.getTime() ?? 0;
    const current = entry.state.kind === "running" && entry.state.client === client;
    const known = entry.disk.get(uri);
    if (
      current && known && known.mtime === mtime && known.size === stat.size &&
      client.documents.get(uri)?.version === known.version && this.#unchanged(known.path, true)
    ) {
      return { uri, text: known.text };
    }
    const text = await this.options.readFile(file);
    languageId ??= languageIdOf(entry.adapter, file) ?? "plaintext";
    const doc = await client.syncDocument(uri, languageId, text);
    // A request still holding a server that has since been replaced must not record its state.
    if (entry.state.kind === "running" && entry.state.client === client) {
      entry.disk.set(uri, { path: file, mtime, size: stat.size, text, version: doc.version });
    }
    return { uri, text };
  }

  /**
   * Whether a file whose recorded state the watcher has not marked is known unchanged without a
   * look at the disk: only when the watcher is exact and covers the file (inside the root,
   * outside the heavy folders). With `statMatches` (its size and mtime are as recorded), a
   * best-effort watcher is enough too: it marks a same-size rewrite within the same mtime tick
   * as soon as it reads the event, which it has almost always done by the time a query comes.
   */
  #unchanged(path: string, statMatches = false): boolean {
    const tracking = this.options.changeTracking?.() ?? "off";
    const enough = tracking === "exact" || (statMatches && tracking === "best effort");
    return enough && isWatched(this.options.workspace, path);
  }

  /**
   * Marks the entry's open files among `changes` to be read again before the next query, even if
   * their size and mtime look the same then.
   */
  markChanged(entry: ServerEntry, changes: readonly FileChange[]): void {
    for (const change of changes) {
      const known = entry.disk.get(toFileUrl(change.path));
      if (known) known.mtime = Number.NaN;
    }
  }

  /** Marks every open file of the entry to be read again before the next query. */
  markAllChanged(entry: ServerEntry): void {
    for (const known of entry.disk.values()) known.mtime = Number.NaN;
  }

  /**
   * For a server that learns of changes on disk only from its own file watcher (see
   * Adapter.openChangedFiles): the files of its languages that changed are opened in it, so the
   * change reaches it before the next query, in order. A batch larger than a few files (a
   * codemod, a checkout) is left to the server's watcher. `checked`: then waits (bounded) for the
   * server's diagnostics of each, which it gives once it has loaded the file's package.
   */
  async openChanged(
    entry: ServerEntry,
    client: ServerClient,
    changes: FileChange[],
    checked = false,
  ): Promise<void> {
    const files = changes.filter((c) =>
      c.type !== 3 && languageIdOf(entry.adapter, c.path) !== undefined &&
      !this.locks.isExclusive(c.path)
    );
    if (files.length === 0 || files.length > MAX_OPENED_ON_CHANGE) return;
    const opened: string[] = [];
    for (const change of files) {
      // Only this server's own files: one of a nested project belongs to that project's server.
      const pick = await this.pick(change.path).catch(() => undefined);
      if (pick?.adapter.id !== entry.adapter.id || pick.root !== entry.root) continue;
      try {
        opened.push((await this.syncFile(entry, client, change.path)).uri);
      } catch {
        // Gone again, or refused by the boundary: the server's own watcher tells it.
      }
    }
    if (!checked) return;
    // gopls loads an opened file's package after the didOpen, not before the next request: asked
    // at once, references to a.Foo still missed the call in b/b.go, created in a new folder.
    await Promise.all(
      opened.map((uri) => client.diagnostics(uri, CREATED_CHECK_MS).catch(() => {})),
    );
  }

  /** Opens again, in a server restarted after a crash, the documents its predecessor had open. */
  async reopen(entry: ServerEntry, client: ServerClient, paths: string[]): Promise<void> {
    for (const path of paths) {
      try {
        await this.syncFile(entry, client, path);
      } catch {
        // Deleted or unreadable since: the server is not told about it, as on a first start.
      }
    }
  }

  /** Re-syncs open documents another tool changed on disk, closes deleted ones. */
  async refresh(entry: ServerEntry, client: ServerClient, except: string): Promise<void> {
    await Promise.all([...entry.disk.entries()].map(async ([uri, known]) => {
      // A file under an overlay is synced again, from the disk, when the overlay is released.
      if (known.path === except || this.locks.isExclusive(known.path)) return;
      if (!client.documents.get(uri)) {
        // Closed by the client (too many open) or never opened in this server: nothing to sync.
        entry.disk.delete(uri);
        return;
      }
      // Unmarked by an exact watcher: not changed since it was sent.
      if (!Number.isNaN(known.mtime) && this.#unchanged(known.path)) return;
      let stat: Deno.FileInfo;
      try {
        // In the thread (see syncFile): one per open document, on every query.
        stat = Deno.statSync(known.path);
      } catch {
        entry.disk.delete(uri);
        await client.closeDocument(uri);
        await client.filesChanged([{ uri, type: 3 }]);
        return;
      }
      if ((stat.mtime?.getTime() ?? 0) === known.mtime && stat.size === known.size) return;
      try {
        await this.syncFile(entry, client, known.path);
      } catch {
        entry.disk.delete(uri);
        await client.closeDocument(uri);
      }
    }));
  }
}
