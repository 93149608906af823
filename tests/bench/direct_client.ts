// The benchmark's yardstick: the smallest LSP client that can ask a server what lspgate asks it.
// It spawns the server, frames JSON-RPC with Content-Length on bytes, answers the server's own
// requests, and keeps documents open as an editor would: no file reading, no hashing, no Workers.
// It is not the product (src/lsp/ is): nothing here handles crashes, cancels or timeouts well.

/** One JSON-RPC message as the server sends it. */
interface Message {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** How to start the server, and what to answer its `workspace/configuration` with. */
export interface DirectOptions {
  command: string[];
  cwd: string;
  env?: Record<string, string>;
  rootUri: string;
  capabilities: Record<string, unknown>;
  initializationOptions?: unknown;
  settings?: Record<string, unknown>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const HEADER_END = [13, 10, 13, 10];

/** A language server spoken to directly over stdio. */
export class DirectClient {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  readonly #versions = new Map<string, number>();
  readonly #texts = new Map<string, string>();
  readonly #pushed = new Map<string, { version?: number; count: number; seq: number }>();
  readonly #pushWaiters = new Set<() => void>();
  readonly #progress = new Set<string | number>();
  readonly #registered = new Set<string>();
  #nextId = 1;
  #pushSeq = 0;
  capabilities: Record<string, unknown> = {};
  /** The server's name and version, as it gave them in initialize. */
  serverInfo?: { name: string; version?: string };

  private constructor(readonly options: DirectOptions) {
    this.#child = new Deno.Command(options.command[0], {
      args: options.command.slice(1),
      cwd: options.cwd,
      env: options.env,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
      // Its own process group, as lspgate starts servers: one kill ends its helpers too.
      detached: true,
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#read();
  }

  /** Spawns the server and runs initialize / initialized. */
  static async start(options: DirectOptions): Promise<DirectClient> {
    const client = new DirectClient(options);
    const result = await client.request<{
      capabilities?: Record<string, unknown>;
      serverInfo?: { name: string; version?: string };
    }>("initialize", {
      processId: Deno.pid,
      rootUri: options.rootUri,
      workspaceFolders: [{ uri: options.rootUri, name: "bench" }],
      capabilities: options.capabilities,
      initializationOptions: options.initializationOptions,
    });
    client.capabilities = result?.capabilities ?? {};
    client.serverInfo = result?.serverInfo;
    client.notify("initialized", {});
    if (options.settings) {
      client.notify("workspace/didChangeConfiguration", { settings: options.settings });
    }
    return client;
  }

  /** The server's process id (for its resident memory). */
  get pid(): number {
    return this.#child.pid;
  }

  /** True while the server reports work in progress (project loading, indexing). */
  get busy(): boolean {
    return this.#progress.size > 0;
  }

  /** Sends a request and resolves with its result (rejects with the server's error). */
  request<R = unknown>(method: string, params: unknown): Promise<R> {
    const id = this.#nextId++;
    return new Promise<R>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#send({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): void {
    this.#send({ jsonrpc: "2.0", method, params });
  }

  /** Opens a document with its text (version 1). */
  open(uri: string, languageId: string, text: string): void {
    this.#versions.set(uri, 1);
    this.#texts.set(uri, text);
    this.notify("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text } });
  }

  /** The text the server has for an open document. */
  textOf(uri: string): string | undefined {
    return this.#texts.get(uri);
  }

  /** The diagnostics count of the last push for a document, if any. */
  lastPush(uri: string): number | undefined {
    return this.#pushed.get(uri)?.count;
  }

  /** True when the document is open. */
  isOpen(uri: string): boolean {
    return this.#versions.has(uri);
  }

  /** Replaces an open document's text; returns the new version. */
  change(uri: string, text: string): number {
    const version = (this.#versions.get(uri) ?? 0) + 1;
    this.#versions.set(uri, version);
    this.#texts.set(uri, text);
    this.notify("textDocument/didChange", {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    });
    return version;
  }

  /** The push sequence number so far: a later push than this one is news. */
  get pushMark(): number {
    return this.#pushSeq;
  }

  /**
   * The diagnostics count of an open document's current version: pulled where the server offers
   * it, else the first push after `since` (for the current version where the server gives one).
   */
  async diagnostics(uri: string, since: number, timeoutMs = 60_000): Promise<number> {
    if (this.#pulls) {
      const report = await this.request<{ items?: unknown[] }>("textDocument/diagnostic", {
        textDocument: { uri },
      });
      return report?.items?.length ?? 0;
    }
    const version = this.#versions.get(uri);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const pushed = this.#pushed.get(uri);
      if (
        pushed && pushed.seq > since &&
        (pushed.version === undefined || pushed.version === version)
      ) {
        return pushed.count;
      }
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no diagnostics for ${uri} v${version} in ${timeoutMs} ms`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#pushWaiters.add(resolve);
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
  }

  get #pulls(): boolean {
    return this.capabilities.diagnosticProvider !== undefined ||
      this.#registered.has("textDocument/diagnostic");
  }

  /** shutdown / exit, then the process group is killed if it lingers. */
  async close(): Promise<void> {
    try {
      await Promise.race([
        this.request("shutdown", null),
        new Promise((resolve) => setTimeout(resolve, 2000)),
      ]);
      this.notify("exit", null);
      await this.#writer.close().catch(() => {});
    } catch {
      // Gone already.
    }
    const timer = setTimeout(() => this.#kill(), 2000);
    await this.#child.status;
    clearTimeout(timer);
    this.#kill();
  }

  #kill() {
    try {
      Deno.kill(-this.#child.pid, "SIGKILL");
    } catch {
      // The group is empty.
    }
  }

  #send(message: unknown) {
    const body = encoder.encode(JSON.stringify(message));
    const header = encoder.encode(`Content-Length: ${body.length}\r\n\r\n`);
    const frame = new Uint8Array(header.length + body.length);
    frame.set(header);
    frame.set(body, header.length);
    this.#writer.write(frame).catch(() => {});
  }

  async #read() {
    let buffer = new Uint8Array(0);
    for await (const chunk of this.#child.stdout) {
      const joined = new Uint8Array(buffer.length + chunk.length);
      joined.set(buffer);
      joined.set(chunk, buffer.length);
      buffer = joined;
      for (;;) {
        const end = indexOf(buffer, HEADER_END);
        if (end < 0) break;
        const header = decoder.decode(buffer.subarray(0, end));
        const length = Number(/content-length:\s*(\d+)/i.exec(header)?.[1]);
        const start = end + HEADER_END.length;
        if (buffer.length < start + length) break;
        const message = JSON.parse(decoder.decode(buffer.subarray(start, start + length)));
        buffer = buffer.slice(start + length);
        this.#dispatch(message);
      }
    }
    for (const pending of this.#pending.values()) pending.reject(new Error("server exited"));
    this.#pending.clear();
  }

  #dispatch(message: Message) {
    if (message.method === undefined) {
      const pending = this.#pending.get(Number(message.id));
      this.#pending.delete(Number(message.id));
      if (message.error) pending?.reject(new Error(message.error.message));
      else pending?.resolve(message.result);
    } else if (message.id !== undefined) {
      this.#send({ jsonrpc: "2.0", id: message.id, result: this.#answer(message) });
    } else if (message.method === "textDocument/publishDiagnostics") {
      const params = message.params as { uri: string; version?: number; diagnostics: unknown[] };
      this.#pushed.set(params.uri, {
        version: params.version,
        count: params.diagnostics.length,
        seq: ++this.#pushSeq,
      });
      for (const wake of this.#pushWaiters) wake();
      this.#pushWaiters.clear();
    } else if (message.method === "$/progress") {
      const params = message.params as { token: string | number; value?: { kind?: string } };
      if (params.value?.kind === "begin") this.#progress.add(params.token);
      if (params.value?.kind === "end") this.#progress.delete(params.token);
    }
  }

  #answer(message: Message): unknown {
    switch (message.method) {
      case "workspace/configuration": {
        const items = (message.params as { items?: { section?: string }[] })?.items ?? [];
        return items.map((item) => section(this.options.settings ?? {}, item.section));
      }
      case "client/registerCapability": {
        const params = message.params as { registrations?: { method: string }[] };
        for (const r of params?.registrations ?? []) this.#registered.add(r.method);
        return null;
      }
      case "workspace/workspaceFolders":
        return [{ uri: this.options.rootUri, name: "bench" }];
      default:
        return null;
    }
  }
}

/** A settings section by dotted name, as lspgate answers `workspace/configuration`. */
function section(settings: Record<string, unknown>, name?: string): unknown {
  if (!name) return settings;
  let value: unknown = settings;
  for (const part of name.split(".")) {
    if (value === null || typeof value !== "object") return null;
    value = (value as Record<string, unknown>)[part];
  }
  return value ?? null;
}

function indexOf(haystack: Uint8Array, needle: number[]): number {
  outer: for (let i = 0; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
