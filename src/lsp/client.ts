import { ProjectHealth } from "./project_health.ts";
import type * as proto from "vscode-languageserver-protocol";
import { JsonRpcConnection } from "../jsonrpc/mod.ts";
import { LspGateError } from "../errors.ts";
import { DocumentStore, type OpenDocument } from "./documents.ts";
import { dropsBom, type PositionEncoding, TSSERVER_UTF16, withoutBom } from "./positions.ts";
import { type ServerProcess, spawnServer } from "./process.ts";
import { supportsMethod } from "./methods.ts";
import { retryContentModified } from "./content_modified.ts";
import { ConfigurationGate } from "./configuration_gate.ts";
import { ProgressTracker } from "./progress_tracker.ts";
import { answerServerRequest } from "./server_requests.ts";
import type { ExitInfo } from "./server_client.ts";
import { notSent } from "./client_util.ts";
import { initializeAnswer, initializeParams } from "./initialize.ts";
import { Waiters } from "./waiters.ts";
import { Readiness } from "./readiness.ts";
import { ClientDiagnostics } from "./client_diagnostics.ts";
import { exitedError, exitReason, HangWatch, startFailure } from "./server_exit.ts";
export { pushKey } from "./client_util.ts";

import type { ClientInfo, ClientOptions, RawDiagnostics } from "./client_types.ts";
export type { ClientInfo, ClientOptions, RawDiagnostics } from "./client_types.ts";

const MAX_OPEN_DOCUMENTS = 200;
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
  readonly #health = new ProjectHealth();
  readonly #waiters = new Waiters(() => this.exitInfo !== undefined);
  readonly #readiness: Readiness;
  readonly #diagnostics: ClientDiagnostics;
  readonly #hang = new HangWatch();
  #exitHandlers: Array<(info: NonNullable<LspClient["exitInfo"]>) => void> = [];
  #shuttingDown = false;
  #killReason?: string;

  private constructor(readonly options: ClientOptions) {
    this.#readiness = new Readiness(options, this.#progress, this.#waiters);
    this.#diagnostics = new ClientDiagnostics(this, {
      progress: this.#progress,
      health: this.#health,
      waiters: this.#waiters,
      gone: () => this.exitInfo ? this.#exitedError() : undefined,
    });
    if (options.openAfterConfiguration) this.#configurationGate = new ConfigurationGate();
    this.#process = spawnServer(options.process, options.installHint);
    this.#connection = new JsonRpcConnection(
      { readable: this.#process.stdout, writable: this.#process.stdin },
      {
        defaultTimeoutMs: options.requestTimeoutMs,
        name: options.serverName,
        maxInFlight: options.maxRequestsInFlight,
      },
    );
    this.#connection.onRequest((method, params) => {
      this.#hang.heard();
      return this.#answerServerRequest(method, params);
    });
    this.#connection.onNotification((method, params) => {
      this.#hang.heard();
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
        ...(this.options.memoryCapMiB !== undefined
          ? { memoryCapMiB: this.options.memoryCapMiB }
          : {}),
      };
      this.#connection.close(exitReason(this.exitInfo));
      for (const handler of this.#exitHandlers.splice(0)) handler(this.exitInfo);
      this.#waiters.notify();
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
      throw startFailure(options.serverName, error, {
        exited: exitedEarly ? client.exitInfo : undefined,
        stderr: client.#process.stderrTail(10),
      });
    }
  }

  async #initialize() {
    const result = await this.#connection.sendRequest<proto.InitializeResult>(
      "initialize",
      initializeParams(this.options),
      { timeoutMs: this.options.startTimeoutMs },
    );
    const answer = initializeAnswer(result);
    this.capabilities = answer.capabilities;
    // UTF-16 is tsserver's only way; its lines are ECMAScript's, its texts without a BOM (see
    // TSSERVER_UTF16). A server that drops a file's BOM is opened files without it too.
    this.encoding = this.options.ecmaLines && answer.encoding === "utf-16"
      ? TSSERVER_UTF16
      : this.options.dropsBom
      ? `${answer.encoding}, without the BOM`
      : answer.encoding;
    this.serverVersion = answer.serverVersion;
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
    // Being stopped (hung, or broken for good): its exit is awaited, so the manager has heard it
    // and the caller's one retry reaches a new server, not this one again.
    if (this.#killReason !== undefined && !this.exitInfo) await this.#exitNoted();
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
      this.#hang.heard();
      return result;
    }, async (error) => {
      if (!(error instanceof LspGateError)) throw error;
      if (error.code === "LSP_ERROR") {
        this.#hang.heard();
        if (this.#wedged(error)) throw await this.#restartedAfter(error);
      }
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
    if (dropsBom(this.encoding)) params = withoutBom(method, params);
    try {
      await this.#connection.sendNotification(method, params);
    } catch (error) {
      if (error instanceof LspGateError && error.code === "SERVER_EXITED") {
        throw await this.#whyClosed(error);
      }
      throw error;
    }
  }

  /** Whether `error` is one that leaves the server broken (ClientOptions.wedgedBy). */
  #wedged(error: LspGateError): boolean {
    const pattern = this.options.wedgedBy;
    return pattern !== undefined && new RegExp(pattern).test(error.message);
  }

  /** Stops a server `error` left broken; the error then says so, and to ask again. */
  async #restartedAfter(error: LspGateError): Promise<LspGateError> {
    this.#stopBroken(`it answered "${error.message.split("\n")[0]}"`);
    // Its exit noted (the manager has heard it), so the question asked again reaches a new one.
    await this.#exitNoted();
    return new LspGateError(
      "LSP_ERROR",
      `${error.message} (a fault of ${this.options.serverName}'s own that breaks it until it ` +
        "restarts: lspgate stopped it, and the next question starts it again; ask again)",
      // Marked so the question is asked once more of a new server (document.ts).
      { ...error.data, restarted: true },
    );
  }

  /** Stops a server that `what` shows broken for good; its next question starts another. */
  #stopBroken(what: string) {
    if (this.exitInfo || this.#shuttingDown) return;
    this.#killReason = `${what}, a fault of its own that leaves it unable to answer until it ` +
      "restarts";
    this.kill("SIGKILL");
  }

  /** Kills the server once timeouts in a row say it hangs (see HangWatch). */
  #timedOut(sentAt: number) {
    const hangs = this.#hang.timedOut(sentAt);
    if (!hangs || this.exitInfo || this.#shuttingDown) return;
    this.#killReason = hangs;
    this.kill("SIGKILL");
  }

  /** The SERVER_EXITED error for a closed connection, with the exit status once it is known. */
  async #whyClosed(fallback: LspGateError): Promise<LspGateError> {
    if (!this.exitInfo && !this.#shuttingDown) await this.#exitNoted();
    return this.exitInfo ? this.#exitedError() : fallback;
  }

  /** Waits (at most EXIT_STATUS_WAIT_MS) until the process's exit is noted and told. */
  async #exitNoted(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#process.exited,
      new Promise((resolve) => timer = setTimeout(resolve, EXIT_STATUS_WAIT_MS)),
    ]);
    clearTimeout(timer);
  }

  /** Makes the server's view of `uri` equal `text` (didOpen or a full didChange). */
  async syncDocument(uri: string, languageId: string, text: string): Promise<OpenDocument> {
    if (this.#configurationGate) await this.#configurationGate.wait(CONFIGURATION_WAIT_MS);
    const step = await this.documents.sync(uri, languageId, text);
    if (step.kind === "unchanged") return step.doc;
    this.#diagnostics.sending(uri, text);
    if (step.kind === "open") {
      this.#readiness.opened();
      await this.notify("textDocument/didOpen", {
        textDocument: { uri, languageId, version: step.doc.version, text },
      });
      this.#diagnostics.sent(uri, false);
      for (const old of this.documents.oldest(MAX_OPEN_DOCUMENTS)) await this.closeDocument(old);
    } else {
      await this.notify("textDocument/didChange", {
        textDocument: { uri, version: step.doc.version },
        contentChanges: [{ text }],
      });
      this.#diagnostics.sent(uri, true);
    }
    return step.doc;
  }

  /** Closes a document the server has open. */
  async closeDocument(uri: string): Promise<void> {
    if (!this.documents.get(uri)) return;
    this.documents.delete(uri);
    this.#diagnostics.forget(uri);
    await this.notify("textDocument/didClose", { textDocument: { uri } });
    this.#diagnostics.closed();
  }

  /** Tells the server files changed on disk that it does not have open. */
  async filesChanged(changes: { uri: string; type: 1 | 2 | 3 }[]): Promise<void> {
    if (changes.length === 0) return;
    await this.notify("workspace/didChangeWatchedFiles", { changes });
    this.#diagnostics.filesChanged(changes.map((change) => change.uri));
  }

  /**
   * Waits until the server has loaded the project (see `readiness`), at most `timeoutMs`.
   * Resolves false when it has not, so callers can say the answer may be partial.
   */
  waitReady(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.#readiness.wait(timeoutMs, signal);
  }

  /** True once waitReady() answers true at once: readiness "immediate", or the project loaded. */
  get ready(): boolean {
    return this.#readiness.ready;
  }

  /** Names of the work the server reports in progress (indexing and the like). */
  get activeProgress(): string[] {
    return this.#progress.descriptions();
  }

  /** True when the server offers pull diagnostics for documents. */
  get pullsDiagnostics(): boolean {
    return this.supports("textDocument/diagnostic");
  }

  /** Diagnostics of an open document, current for every change told (see ClientDiagnostics). */
  diagnostics(uri: string, timeoutMs: number, signal?: AbortSignal): Promise<RawDiagnostics> {
    return this.#diagnostics.diagnostics(uri, timeoutMs, signal);
  }

  /** Waits until the server's own diagnostics of `uri` hold `items` (see ClientDiagnostics). */
  published(
    uri: string,
    items: proto.Diagnostic[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    return this.#diagnostics.published(uri, items, { timeoutMs, signal });
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

  #exitedError(): LspGateError {
    return exitedError(this.options.serverName, this.exitInfo);
  }

  #answerServerRequest(method: string, params: unknown): unknown {
    return answerServerRequest(method, params, {
      options: this.options,
      // The answer is written before the next didOpen: the server has its settings first.
      configured: () => queueMicrotask(() => this.#configurationGate?.open()),
      register: (id, registration) => {
        if (registration) this.#registrations.set(id, registration);
        else this.#registrations.delete(id);
        this.#waiters.notify();
      },
    });
  }

  #onNotification(method: string, params: unknown) {
    this.#health.observe(method, params);
    if (method === "window/logMessage" && this.options.wedgedByLog !== undefined) {
      const message = (params as { message?: unknown } | null)?.message;
      if (typeof message === "string" && new RegExp(this.options.wedgedByLog).test(message)) {
        this.#stopBroken(`it logged "${message.split("\n")[0]}"`);
      }
    }
    // A push that names no document is no push: nothing to note, nobody to wake.
    if (method === "textDocument/publishDiagnostics" && !this.#diagnostics.pushed(params)) return;
    this.#readiness.observe(method, params);
    this.#waiters.notify();
  }
}
