import { ProjectHealth } from "./project_health.ts";
import type * as proto from "vscode-languageserver-protocol";
import { JsonRpcConnection } from "../jsonrpc/mod.ts";
import { LspGateError } from "../errors.ts";
import { CLIENT_CAPABILITIES } from "./capabilities.ts";
import { DocumentStore, type OpenDocument } from "./documents.ts";
import { negotiatedEncoding, type PositionEncoding } from "./positions.ts";
import { type ServerProcess, spawnServer } from "./process.ts";
import { supportsMethod } from "./methods.ts";
import { retryContentModified } from "./content_modified.ts";
import { ConfigurationGate } from "./configuration_gate.ts";
import { askDiagnosticsHook } from "./ask_diagnostics_hook.ts";
import { ProgressTracker } from "./progress_tracker.ts";
import { answerServerRequest } from "./server_requests.ts";
import type { ExitInfo } from "./server_client.ts";
import { baseName, delay, notSent, pushKey } from "./client_util.ts";
export { pushKey } from "./client_util.ts";

import type {
  ClientInfo,
  ClientOptions,
  PushedDiagnostics,
  RawDiagnostics,
  Told,
} from "./client_types.ts";
export type { ClientInfo, ClientOptions, RawDiagnostics } from "./client_types.ts";

const DIAGNOSTICS_QUIET_MS = 200;
/** How long after the first open an index (indexProgressToken) may take to begin. */
const INDEX_START_GRACE_MS = 2000;
const EMPTY_PUSH_WAIT_MS = 500;
const MAX_OPEN_DOCUMENTS = 200;
/** Timeouts in a row, with no message of any kind from the server between, that mean it hangs. */
const HANG_LIMIT = 3;
// The connection sees a crash (stdout ends) a moment before the exit status arrives: how long
// to wait for the status, so the error can say how the server ended and what it last printed.
const EXIT_STATUS_WAIT_MS = 1000;
/** How long a first didOpen waits for the server to ask for its configuration (see the gate). */
const CONFIGURATION_WAIT_MS = 5000;

/** One language server: spawn, initialize, sync documents, requests in and results out. */
export class LspClient {
  readonly documents = new DocumentStore();
  capabilities: proto.ServerCapabilities = {};
  encoding: PositionEncoding = "utf-16";
  serverVersion?: string;
  readonly startedAt = Date.now();
  /** How the process ended; `reason` is set when lspgate killed it for misbehaving. */
  exitInfo?: ExitInfo;

  #connection: JsonRpcConnection;
  #process: ServerProcess;
  #configurationGate?: ConfigurationGate;
  #registrations = new Map<string, { method: string; options: unknown }>();
  readonly #progress = new ProgressTracker();
  #pushed = new Map<string, PushedDiagnostics>();
  #pulled = new Map<string, { resultId?: string; items: proto.Diagnostic[] }>();
  /** Document and file notifications sent so far (didOpen, didChange, didClose, didChangeWatchedFiles). */
  #told = 0;
  /**
   * The change generation: `#told` as of the latest change to text the server already knew (a
   * didChange, a didChangeWatchedFiles). A push speaks for the state after a change only if it
   * arrived later. A didOpen or didClose is no change: lspgate opens files with their disk text.
   */
  #generation = 0;
  #crossFile?: RegExp;
  /** Per open document, its own latest didOpen or didChange (told: Infinity while being sent). */
  #synced = new Map<string, Told>();
  /** Per open document, the text the server has, to send it again unchanged (see diagnostics). */
  #texts = new Map<string, string>();
  #waiters = new Set<() => void>();
  #firstOpenAt?: number;
  #settled = false;
  /** The server's last `quiescentNotification` said it was quiescent. */
  #quiescent = false;
  readonly #health = new ProjectHealth();
  /** The server logged `readyLogMessage`. */
  #loggedReady = false;
  #exitHandlers: Array<(info: NonNullable<LspClient["exitInfo"]>) => void> = [];
  #shuttingDown = false;
  #silentTimeouts = 0;
  #lastSilentTimeoutAt = -Infinity;
  #killReason?: string;

  private constructor(readonly options: ClientOptions) {
    if (options.openAfterConfiguration) this.#configurationGate = new ConfigurationGate();
    this.#process = spawnServer(options.process, options.installHint);
    this.#connection = new JsonRpcConnection(
      { readable: this.#process.stdout, writable: this.#process.stdin },
      { defaultTimeoutMs: options.requestTimeoutMs, name: options.serverName },
    );
    this.#connection.onRequest((method, params) => {
      this.#heard();
      return this.#answerServerRequest(method, params);
    });
    this.#connection.onNotification((method, params) => {
      this.#heard();
      this.#onNotification(method, params);
    });
    let orphanTimer: ReturnType<typeof setTimeout> | undefined;
    this.#connection.onClose(() => {
      // A server that closed its output (or stopped reading its input) cannot answer again; if
      // it does not exit by itself, it is killed, so the manager notices and restarts it.
      if (this.exitInfo || this.#shuttingDown) return;
      orphanTimer = setTimeout(() => this.kill("SIGKILL"), EXIT_STATUS_WAIT_MS);
    });
    this.#process.exited.then((status) => {
      clearTimeout(orphanTimer);
      this.exitInfo = {
        ...status,
        stderr: this.#process.stderrTail(20),
        ...(this.#killReason ? { reason: this.#killReason } : {}),
      };
      this.#connection.close(this.#exitReason());
      for (const handler of this.#exitHandlers.splice(0)) handler(this.exitInfo);
      this.#notifyWaiters();
    });
    this.#connection.listen();
  }

  /** Spawns the server and runs initialize / initialized; fails with SERVER_START_FAILED. */
  static async start(options: ClientOptions): Promise<LspClient> {
    const client = new LspClient(options);
    try {
      await client.#initialize();
      return client;
    } catch (error) {
      const exitedEarly = error instanceof LspGateError && error.code === "SERVER_EXITED";
      if (exitedEarly) await client.#whyClosed(error);
      client.kill();
      await client.#process.exited;
      const stderr = client.#process.stderrTail(10);
      const reason = exitedEarly
        ? client.#exitReason().replace(/^server /, "it ")
        : error instanceof Error
        ? error.message
        : String(error);
      throw new LspGateError(
        "SERVER_START_FAILED",
        `${options.serverName} failed to start: ${reason}` +
          (stderr.length ? `\nlast stderr lines:\n${stderr.join("\n")}` : ""),
        { server: options.serverName, stderr },
      );
    }
  }

  async #initialize() {
    const params: proto.InitializeParams = {
      processId: this.options.hideProcessId ? null : Deno.pid,
      clientInfo: { name: "lspgate", version: "0.1.0" },
      rootUri: this.options.rootUri,
      rootPath: this.options.root,
      workspaceFolders: [{ uri: this.options.rootUri, name: baseName(this.options.root) }],
      capabilities: { ...CLIENT_CAPABILITIES, ...this.options.extraCapabilities },
      initializationOptions: this.options.initializationOptions,
    };
    const result = await this.#connection.sendRequest<proto.InitializeResult>(
      "initialize",
      params,
      { timeoutMs: this.options.startTimeoutMs },
    );
    this.capabilities = result?.capabilities ?? {};
    // clangd before 16 negotiates through its own `offsetEncoding` instead of positionEncoding.
    this.encoding = negotiatedEncoding(
      this.capabilities.positionEncoding ??
        (result as { offsetEncoding?: unknown })?.offsetEncoding,
    );
    this.serverVersion = result?.serverInfo?.version;
    await this.#connection.sendNotification("initialized", {});
    if (this.options.settings) {
      await this.#connection.sendNotification("workspace/didChangeConfiguration", {
        settings: this.options.settings,
      });
    }
  }

  /** The process id of the server. */
  get pid(): number {
    return this.#process.pid;
  }

  /** Milliseconds since the server started. */
  get uptimeMs(): number {
    return Date.now() - this.startedAt;
  }

  /** True once the server process has exited. */
  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** Calls `handler` once when the server process exits (soon, if it has already). */
  onExit(handler: (info: NonNullable<LspClient["exitInfo"]>) => void): void {
    const info = this.exitInfo;
    if (info) queueMicrotask(() => handler(info));
    else this.#exitHandlers.push(handler);
  }

  /** Methods the server registered dynamically. */
  registeredMethods(): string[] {
    return [...this.#registrations.values()].map((r) => r.method);
  }

  /** True when the server offers `method`, statically or through a dynamic registration. */
  supports(method: string): boolean {
    return supportsMethod(this.capabilities, this.registeredMethods(), method);
  }

  /** Sends a request; errors come back as LspGateError (TIMEOUT, CANCELLED, LSP_ERROR, SERVER_EXITED). */
  async request<R = unknown>(
    method: string,
    params: unknown,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<R> {
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
    const startedAt = performance.now();
    return await this.#requestOnce<R>(method, params, timeoutMs, options.signal).catch((error) =>
      // ContentModified is asked again, as editors do (see content_modified.ts).
      retryContentModified(
        method,
        timeoutMs - (performance.now() - startedAt),
        (left) => this.#requestOnce<R>(method, params, left, options.signal),
        options.signal,
        error,
      )
    );
  }

  async #requestOnce<R>(
    method: string,
    params: unknown,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<R> {
    // Gone before we asked (killed between two queries, its exit not yet fully handled): the
    // request never reaches it, and the caller may ask a restarted server.
    if (this.exitInfo || !this.#process.alive || this.#connection.isClosed) {
      throw notSent(this.#exitedError());
    }
    const sentAt = performance.now();
    const closedBeforeSending = this.#connection.isClosed;
    return await this.#connection.sendRequest<R>(method, params, {
      timeoutMs,
      signal,
    }).then((result) => {
      this.#heard();
      return result;
    }, async (error) => {
      if (!(error instanceof LspGateError)) throw error;
      if (error.code === "LSP_ERROR") this.#heard();
      if (error.code === "TIMEOUT") this.#timedOut(sentAt);
      if (error.code === "SERVER_EXITED") {
        const why = await this.#whyClosed(error);
        throw closedBeforeSending || error.data?.notSent === true ? notSent(why) : why;
      }
      throw error;
    });
  }

  /** Sends a notification; SERVER_EXITED (with how and why) when the server is gone. */
  async notify(method: string, params: unknown): Promise<void> {
    if (this.exitInfo) throw this.#exitedError();
    try {
      await this.#connection.sendNotification(method, params);
    } catch (error) {
      if (error instanceof LspGateError && error.code === "SERVER_EXITED") {
        throw await this.#whyClosed(error);
      }
      throw error;
    }
  }

  /** Any message from the server shows it is alive. */
  #heard() {
    this.#silentTimeouts = 0;
  }

  /**
   * Counts a timeout towards HANG_LIMIT, and kills the server when it is reached. Requests sent
   * together that time out together (a diagnostics batch on a busy server) count once: only a
   * request sent after the last counted timeout counts again.
   */
  #timedOut(sentAt: number) {
    if (sentAt < this.#lastSilentTimeoutAt) return;
    this.#lastSilentTimeoutAt = performance.now();
    this.#silentTimeouts++;
    if (this.#silentTimeouts < HANG_LIMIT || this.exitInfo || this.#shuttingDown) return;
    this.#killReason = `it stopped answering (${this.#silentTimeouts} requests in a row timed ` +
      `out with no message from it)`;
    this.kill("SIGKILL");
  }

  /** The SERVER_EXITED error for a closed connection, with the exit status once it is known. */
  async #whyClosed(fallback: LspGateError): Promise<LspGateError> {
    if (!this.exitInfo && !this.#shuttingDown) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#process.exited,
        new Promise((resolve) => timer = setTimeout(resolve, EXIT_STATUS_WAIT_MS)),
      ]);
      clearTimeout(timer);
    }
    return this.exitInfo ? this.#exitedError() : fallback;
  }

  /** Makes the server's view of `uri` equal `text` (didOpen or a full didChange). */
  async syncDocument(uri: string, languageId: string, text: string): Promise<OpenDocument> {
    if (this.#configurationGate) await this.#configurationGate.wait(CONFIGURATION_WAIT_MS);
    const step = await this.documents.sync(uri, languageId, text);
    if (step.kind === "unchanged") return step.doc;
    // Nothing the server says while the new text is on its way speaks for it.
    this.#synced.set(uri, { told: Infinity, at: Infinity });
    this.#texts.set(uri, text);
    if (step.kind === "open") {
      this.#firstOpenAt ??= performance.now();
      await this.notify("textDocument/didOpen", {
        textDocument: { uri, languageId, version: step.doc.version, text },
      });
      this.#synced.set(uri, this.#tell());
      for (const old of this.documents.oldest(MAX_OPEN_DOCUMENTS)) await this.closeDocument(old);
    } else {
      await this.notify("textDocument/didChange", {
        textDocument: { uri, version: step.doc.version },
        contentChanges: [{ text }],
      });
      const told = this.#tell();
      this.#synced.set(uri, told);
      if (this.#affectsOthers(uri)) this.#generation = told.told;
    }
    return step.doc;
  }

  /** Closes a document the server has open. */
  async closeDocument(uri: string): Promise<void> {
    if (!this.documents.get(uri)) return;
    this.documents.delete(uri);
    this.#pushed.delete(pushKey(uri));
    this.#synced.delete(uri);
    this.#texts.delete(uri);
    await this.notify("textDocument/didClose", { textDocument: { uri } });
    this.#tell();
  }

  /** Tells the server files changed on disk that it does not have open. */
  async filesChanged(changes: { uri: string; type: 1 | 2 | 3 }[]): Promise<void> {
    if (changes.length === 0) return;
    await this.notify("workspace/didChangeWatchedFiles", { changes });
    const told = this.#tell();
    if (changes.some((change) => this.#affectsOthers(change.uri))) this.#generation = told.told;
  }

  /** Whether a change of `uri` can change other documents' diagnostics (see crossFilePattern). */
  #affectsOthers(uri: string): boolean {
    const pattern = this.options.crossFilePattern;
    if (pattern === undefined) return true;
    this.#crossFile ??= new RegExp(pattern);
    return this.#crossFile.test(pushKey(uri));
  }

  /**
   * Sends an open document again, unchanged, as its next version: the server checks it anew after
   * every change told before, and publishes for it.
   */
  async #resend(uri: string): Promise<void> {
    const text = this.#texts.get(uri);
    const doc = text === undefined ? undefined : this.documents.touch(uri);
    if (!doc) return;
    this.#synced.set(uri, { told: Infinity, at: Infinity });
    if (this.options.recheckByReopen) {
      await this.notify("textDocument/didClose", { textDocument: { uri } });
      await this.notify("textDocument/didOpen", {
        textDocument: { uri, languageId: doc.languageId, version: doc.version, text },
      });
    } else {
      await this.notify("textDocument/didChange", {
        textDocument: { uri, version: doc.version },
        contentChanges: [{ text }],
      });
    }
    this.#synced.set(uri, this.#tell());
  }

  /** Counts one document or file notification as sent. */
  #tell(): Told {
    return { told: ++this.#told, at: performance.now() };
  }

  /**
   * Waits until the server has loaded the project (see `readiness`), at most `timeoutMs`.
   * Resolves false when it has not, so callers can say the answer may be partial.
   */
  async waitReady(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.options.readiness !== "progress" || this.#settled) return true;
    if (this.options.readyLogMessage !== undefined) {
      this.#settled = await this.#waitFor(() => this.#loggedReady, timeoutMs, signal);
      return this.#settled;
    }
    if (this.options.quiescentNotification !== undefined) {
      this.#settled = await this.#waitFor(() => this.#quiescent, timeoutMs, signal);
      return this.#settled;
    }
    const deadline = performance.now() + timeoutMs;
    const index = this.options.indexProgressToken;
    if (index !== undefined && this.#firstOpenAt !== undefined && !this.#progress.indexBegun) {
      const grace = this.#firstOpenAt + INDEX_START_GRACE_MS - performance.now();
      await this.#waitFor(
        () => this.#progress.indexBegun,
        Math.max(1, Math.min(grace, timeoutMs)),
        signal,
      );
    }
    const ready = () => {
      if (this.#firstOpenAt === undefined) return true;
      if (this.#progress.size > 0) return false;
      return index !== undefined || this.#settled;
    };
    const ok = await this.#waitFor(ready, Math.max(1, deadline - performance.now()), signal);
    if (ok) this.#settled = true;
    return ok;
  }

  /** True once waitReady() answers true at once: readiness "immediate", or the project loaded. */
  get ready(): boolean {
    return this.options.readiness !== "progress" || this.#settled;
  }

  /** Names of the work the server reports in progress (indexing and the like). */
  get activeProgress(): string[] {
    return this.#progress.descriptions();
  }

  /** True when the server offers pull diagnostics for documents. */
  get pullsDiagnostics(): boolean {
    return this.supports("textDocument/diagnostic");
  }

  /**
   * Diagnostics of an open document for every change the server has been told of (its own and,
   * but for a linter, every other file's): pulled afresh where the server offers it, else asked
   * through the adapter's diagnostics hook, else the first push that arrived after the document
   * was last sent (matching its version, where the server sends one). A document last sent before
   * another file changed is sent again, unchanged, so the server checks it again now instead of at
   * a time of its choosing.
   */
  async diagnostics(uri: string, timeoutMs: number, signal?: AbortSignal): Promise<RawDiagnostics> {
    const key = pushKey(uri);
    const deadline = performance.now() + timeoutMs;
    let doc = this.documents.get(uri);
    if (!doc) throw new LspGateError("INTERNAL", `diagnostics asked for ${uri}, which is not open`);
    if (this.pullsDiagnostics) {
      try {
        // A pull sent after the change notifications is answered after them.
        return { status: "ok", items: await this.#pullDiagnostics(uri, timeoutMs, signal) };
      } catch (error) {
        if (!(error instanceof LspGateError) || error.code !== "LSP_ERROR") throw error;
        // A server that advertised pull but answers MethodNotFound still pushes.
      }
    }
    const asked = await askDiagnosticsHook({
      uri,
      options: this.options,
      serverCapabilities: this.capabilities,
      clientCapabilities: { ...CLIENT_CAPABILITIES, ...this.options.extraCapabilities },
      request: <R>(method: string, params: unknown) =>
        this.request<R>(method, params, {
          timeoutMs: Math.max(1, deadline - performance.now()),
          signal,
        }),
    }, timeoutMs);
    if (asked) return asked;
    // typescript-language-server hears of files changed on disk from tsserver's own watcher, and
    // tsserver updates the open files' diagnostics 2.5 s later (delayEnsureProjectForOpenFiles);
    // a document sent again is checked at once, and its push (or silence) is about the new state.
    const stale = (this.#synced.get(uri)?.told ?? Infinity) < this.#generation;
    if (stale && !this.options.fileScopedDiagnostics) {
      await this.#resend(uri);
      doc = this.documents.get(uri) ?? doc;
    }
    const version = doc.version;
    const since = this.#synced.get(uri) ?? { told: Infinity, at: Infinity };
    const fresh = () => {
      const pushed = this.#pushed.get(key);
      if (!pushed || pushed.told < since.told) return undefined;
      return pushed.version === undefined || pushed.version === version ? pushed : undefined;
    };
    // A server silent on clean files: once it kept quiet this long after the document was sent,
    // with no work in progress, a clean last push (for an earlier text) still holds.
    const stillClean = this.options.stillCleanAfterMs;
    const cleanBefore = stillClean !== undefined && this.#pushed.get(key)?.items.length === 0;
    const quietUntil = () =>
      Math.max(since.at + (stillClean ?? 0), this.#progress.endedAt + DIAGNOSTICS_QUIET_MS);
    // pyright registers pull diagnostics dynamically, shortly after `initialized`, and then
    // stops pushing: a registration arriving while we wait switches to pulling.
    const heard = () => fresh() !== undefined || this.pullsDiagnostics;
    let pushed: PushedDiagnostics | undefined;
    while (!(pushed = fresh()) && !this.pullsDiagnostics) {
      const now = performance.now();
      if (cleanBefore && now >= quietUntil() && this.#progress.size === 0) {
        return { status: "ok", items: [] };
      }
      // Said as what happened: a crash or a cancel is not "not available yet".
      if (this.exitInfo) throw this.#exitedError();
      if (signal?.aborted) throw new LspGateError("CANCELLED", "the request was cancelled");
      if (now >= deadline) {
        return {
          status: "timeout",
          items: [],
          reason: `diagnostics not available yet (timed out after ${timeoutMs} ms)`,
        };
      }
      // Wake for a push, at the end of the quiet window, or when the work in progress ends.
      const quietLeft = cleanBefore ? quietUntil() - now : Infinity;
      const working = cleanBefore && quietLeft <= 0;
      await this.#waitFor(
        () => heard() || (working && this.#progress.size === 0),
        Math.max(1, Math.min(deadline - now, quietLeft > 0 ? quietLeft : Infinity)),
        signal,
      );
    }
    if (!pushed) {
      const left = Math.max(1, deadline - performance.now());
      return { status: "ok", items: await this.#pullDiagnostics(uri, left, signal) };
    }
    // Some servers (biome, pyright in push mode) first push an empty set for a fresh version and
    // the real one moments later: an empty push is trusted once it has stood one quiet window
    // (an empty push of long ago, for a file asked again unchanged, is answered at once).
    const emptyLeft = pushed.at + EMPTY_PUSH_WAIT_MS - performance.now();
    if (pushed.version !== undefined && pushed.items.length === 0 && emptyLeft > 0) {
      const first = pushed;
      await this.#waitFor(
        () => (this.#pushed.get(key)?.at ?? first.at) !== first.at,
        Math.min(emptyLeft, Math.max(1, deadline - performance.now())),
        signal,
      );
      pushed = fresh() ?? pushed;
    }
    if (pushed.version === undefined) {
      // No version to match: let a burst of pushes (syntax, then semantic) settle.
      while (performance.now() < deadline) {
        const seen = pushed.at;
        await delay(DIAGNOSTICS_QUIET_MS, signal);
        pushed = this.#pushed.get(key) ?? pushed;
        if (pushed.at === seen) break;
      }
    }
    return { status: "ok", items: pushed.items };
  }

  /**
   * Waits (at most `timeoutMs`) until the server has pushed, for the document as last sent, a set
   * holding each of `items` (same range and code): what it keeps of its own diagnostics is then
   * current. False on timeout. typescript-language-server answers code actions from its own
   * diagnostics, not the request's, while its check of a change is pending
   * (TypeScriptQuickFixProvider): asked right after an edit, it listed no quick fixes. A push
   * without a version that arrives after a change may still be of the text before it, hence the
   * items.
   */
  published(
    uri: string,
    items: proto.Diagnostic[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const doc = this.documents.get(uri);
    if (!doc || items.length === 0 || this.pullsDiagnostics) return Promise.resolve(true);
    const since = this.#synced.get(uri) ?? { told: Infinity, at: Infinity };
    const key = pushKey(uri);
    const place = (d: proto.Diagnostic) =>
      `${d.range.start.line}:${d.range.start.character}:${d.range.end.line}:` +
      `${d.range.end.character}:${d.code ?? ""}`;
    const wanted = items.map(place);
    const holds = () => {
      const pushed = this.#pushed.get(key);
      if (!pushed || pushed.told < since.told) return false;
      if (pushed.version !== undefined && pushed.version !== doc.version) return false;
      const have = new Set(pushed.items.map(place));
      return wanted.every((w) => have.has(w));
    };
    return this.#waitFor(holds, Math.max(1, timeoutMs), signal);
  }

  async #pullDiagnostics(uri: string, timeoutMs: number, signal?: AbortSignal) {
    const previous = this.#pulled.get(uri);
    const report = await this.request<proto.DocumentDiagnosticReport>(
      "textDocument/diagnostic",
      { textDocument: { uri }, previousResultId: previous?.resultId },
      { timeoutMs, signal },
    );
    if (report?.kind === "unchanged" && previous) return previous.items;
    const items = (report as proto.FullDocumentDiagnosticReport)?.items ?? [];
    this.#pulled.set(uri, { resultId: report?.resultId, items });
    this.#health.observe("textDocument/publishDiagnostics", { uri, diagnostics: items });
    return items;
  }

  /** A snapshot for `status`. */
  info(): ClientInfo {
    return {
      serverName: this.options.serverName,
      pid: this.#process.pid,
      root: this.options.root,
      encoding: this.encoding,
      startedAt: this.startedAt,
      openDocuments: this.documents.size,
      indexing: this.activeProgress,
      serverVersion: this.serverVersion,
      stderr: this.#process.stderrTail(5),
      projectProblem: this.#health.problem,
      brokenImports: this.#health.brokenImports,
    };
  }

  /** shutdown, exit, and a kill (of its process group) once `graceMs` has passed since the call. */
  async shutdown(graceMs = 2000): Promise<void> {
    if (this.#shuttingDown) return await this.#process.exited.then(() => {});
    this.#shuttingDown = true;
    const timer = setTimeout(() => this.kill("SIGKILL"), graceMs);
    if (!this.exitInfo) {
      try {
        // No params at all: deno lsp refuses `"params": null` with InvalidParams.
        await this.#connection.sendRequest("shutdown", undefined, { timeoutMs: graceMs });
      } catch {
        // An error answer still means it is listening: exit follows; silence ends in the kill.
      }
      // Not awaited: a server that stopped reading its input must not hold us past the grace.
      this.#connection.sendNotification("exit", undefined).catch(() => {});
    }
    await this.#process.exited;
    clearTimeout(timer);
    this.#connection.close("shut down");
    await this.#connection.closed;
  }

  /** Kills the server process. */
  kill(signal: Deno.Signal = "SIGKILL"): void {
    this.#process.kill(signal);
  }

  #exitReason(): string {
    const info = this.exitInfo;
    if (!info) return "connection closed";
    if (info.reason) return `server was killed: ${info.reason}`;
    return info.signal ? `server killed by ${info.signal}` : `server exited with code ${info.code}`;
  }

  #exitedError(): LspGateError {
    const stderr = this.exitInfo?.stderr ?? [];
    return new LspGateError(
      "SERVER_EXITED",
      `${this.options.serverName} ${this.#exitReason().replace(/^server /, "")}` +
        (stderr.length ? `; last stderr lines:\n${stderr.slice(-5).join("\n")}` : ""),
      { server: this.options.serverName, stderr },
    );
  }

  #answerServerRequest(method: string, params: unknown): unknown {
    return answerServerRequest(method, params, {
      options: this.options,
      // The answer is written before the next didOpen: the server has its settings first.
      configured: () => queueMicrotask(() => this.#configurationGate?.open()),
      register: (id, registration) => {
        if (registration) this.#registrations.set(id, registration);
        else this.#registrations.delete(id);
        this.#notifyWaiters();
      },
    });
  }

  #onNotification(method: string, params: unknown) {
    this.#health.observe(method, params);
    if (method === "textDocument/publishDiagnostics") {
      const p = params as proto.PublishDiagnosticsParams;
      if (typeof p?.uri !== "string") return;
      this.#pushed.set(pushKey(p.uri), {
        version: typeof p.version === "number" ? p.version : undefined,
        items: Array.isArray(p.diagnostics) ? p.diagnostics : [],
        at: performance.now(),
        told: this.#told,
      });
      if (this.#firstOpenAt !== undefined) this.#settled = true;
    } else if (method === "window/logMessage" && this.options.readyLogMessage !== undefined) {
      const message = (params as { message?: unknown })?.message;
      if (typeof message === "string" && new RegExp(this.options.readyLogMessage).test(message)) {
        this.#loggedReady = true;
      }
    } else if (method === this.options.quiescentNotification) {
      this.#quiescent = (params as { quiescent?: unknown })?.quiescent === true;
    } else if (method === "$/progress") {
      const kind = this.#progress.observe(params, this.options.indexProgressToken);
      if (kind === "end" && this.#firstOpenAt !== undefined) this.#settled = true;
    }
    this.#notifyWaiters();
  }

  #notifyWaiters() {
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** Resolves true as soon as `predicate` holds, false on timeout, exit or abort. */
  #waitFor(predicate: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (predicate()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (value: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        signal?.removeEventListener("abort", onAbort);
        resolve(value);
      };
      const check = () => {
        if (predicate()) finish(true);
        else if (this.exitInfo) finish(false);
      };
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.#waiters.add(check);
      signal?.addEventListener("abort", onAbort);
    });
  }
}
