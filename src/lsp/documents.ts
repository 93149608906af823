/** What the server has been told about one open document. */
export interface OpenDocument {
  uri: string;
  languageId: string;
  version: number;
  hash: string;
  /** performance.now() when the server was last told about this version. */
  syncedAt: number;
  /** performance.now() when a query last needed this document. */
  usedAt: number;
}

/** The change to send so the server's view equals `text`: none, an open, or a full-text change. */
export type SyncStep =
  | { kind: "unchanged"; doc: OpenDocument }
  | { kind: "open"; doc: OpenDocument }
  | { kind: "change"; doc: OpenDocument };

/** Versions and content hashes of the documents a server has open. */
export class DocumentStore {
  #docs = new Map<string, OpenDocument>();

  /** The open document for a URI, if any. */
  get(uri: string): OpenDocument | undefined {
    return this.#docs.get(uri);
  }

  /** URIs of every open document. */
  uris(): string[] {
    return [...this.#docs.keys()];
  }

  /** Every open document. */
  all(): OpenDocument[] {
    return [...this.#docs.values()];
  }

  /** Number of open documents. */
  get size(): number {
    return this.#docs.size;
  }

  /** Records `text` as the server's view and says what must be sent for that. */
  async sync(uri: string, languageId: string, text: string): Promise<SyncStep> {
    const hash = await contentHash(text);
    const known = this.#docs.get(uri);
    if (known && known.hash === hash) {
      known.usedAt = performance.now();
      return { kind: "unchanged", doc: known };
    }
    const doc: OpenDocument = {
      uri,
      languageId,
      version: known ? known.version + 1 : 1,
      hash,
      syncedAt: performance.now(),
      usedAt: performance.now(),
    };
    this.#docs.set(uri, doc);
    return { kind: known ? "change" : "open", doc };
  }

  /**
   * A next version of an open document with the same text, for re-sending it unchanged (so the
   * server checks it again); undefined when it is not open.
   */
  touch(uri: string): OpenDocument | undefined {
    const known = this.#docs.get(uri);
    if (!known) return undefined;
    const now = performance.now();
    const doc = { ...known, version: known.version + 1, syncedAt: now, usedAt: now };
    this.#docs.set(uri, doc);
    return doc;
  }

  /** Forgets a document (after didClose). */
  delete(uri: string): void {
    this.#docs.delete(uri);
  }

  /** The least recently synced documents beyond `keep`, to close. */
  oldest(keep: number): string[] {
    if (this.#docs.size <= keep) return [];
    return [...this.#docs.values()]
      .sort((a, b) => a.usedAt - b.usedAt)
      .slice(0, this.#docs.size - keep)
      .map((doc) => doc.uri);
  }
}

async function contentHash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest).slice(0, 16), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}
