import type * as proto from "vscode-languageserver-protocol";
import { LspGateError } from "../errors.ts";
import { WORKER_NAMES, workerUrl } from "../workers.ts";
import type { ClientInfo, ClientOptions, RawDiagnostics } from "./client.ts";
import type { OpenDocument } from "./documents.ts";
import { supportsMethod } from "./methods.ts";
import type { PositionEncoding } from "./positions.ts";
import type { ExitInfo, ServerClient } from "./server_client.ts";
import type {
  CallableMethod,
  ClientSnapshot,
  ClientStateChange,
  FromWorker,
  ToWorker,
  WireError,
} from "./worker_protocol.ts";

/** The Deno permissions one server's Worker gets: only what that server needs. */
export interface WorkerScope {
  /** Binaries the Worker may spawn: the server (or bwrap wrapping it). */
  run: string[];
  /** Folders the Worker may read (none needed: lspgate sends it the text). */
  read?: string[];
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: LspGateError): void;
}

/** How long a Worker whose server exited waits for its last answers before it is ended. */
const RETIRE_AFTER_EXIT_MS = 3000;

/**
 * An LspClient running in its own Worker, whose Deno permissions are narrowed to `scope`: it may
 * spawn its server binary and nothing else; it reads, writes and connects to nothing.
 */
export class WorkerClient implements ServerClient {
  #worker: Worker;
  #snapshot!: ClientSnapshot;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #exitHandlers: ((info: ExitInfo) => void)[] = [];
  #documents = new Map<string, OpenDocument>();
  #terminated = false;
  #retireTimer?: ReturnType<typeof setTimeout>;
  exitInfo?: ExitInfo;

  private constructor(readonly options: ClientOptions, worker: Worker) {
    this.#worker = worker;
  }

  /** Starts a Worker with narrowed permissions and the server inside it. */
  static start(options: ClientOptions, scope: WorkerScope): Promise<WorkerClient> {
    let worker: Worker;
    try {
      worker = new Worker(workerUrl(), {
        type: "module",
        name: `${WORKER_NAMES.client} ${options.serverName}`,
        deno: {
          permissions: {
            read: scope.read?.length ? scope.read : false,
            write: false,
            net: false,
            env: false,
            ffi: false,
            sys: false,
            import: false,
            run: scope.run,
          },
        },
      } as WorkerOptions);
    } catch (error) {
      throw new LspGateError(
        "PERMISSION_DENIED",
        `${options.serverName}'s binary ${scope.run.join(", ")} is outside lspgate's own Deno ` +
          `permissions, so its Worker cannot be granted it: ${
            error instanceof Error ? error.message : error
          } (grant it with --allow-run=${scope.run.join(",")})`,
        { server: options.serverName, run: scope.run },
      );
    }
    const client = new WorkerClient(options, worker);
    return client.#start();
  }

  #start(): Promise<WorkerClient> {
    return new Promise((resolve, reject) => {
      this.#worker.onmessage = (event: MessageEvent<FromWorker>) => {
        const message = event.data;
        if (message.type === "started") {
          this.#apply(message.snapshot);
          resolve(this);
        } else if (message.type === "startFailed") {
          this.#terminate();
          reject(fromWire(message.error));
        } else {
          this.#onMessage(message);
        }
      };
      this.#worker.onerror = (event) => {
        event.preventDefault();
        const error = new LspGateError(
          "INTERNAL",
          `${this.options.serverName}'s worker failed: ${event.message}`,
        );
        this.#terminate();
        reject(error);
        this.#failAll(error);
      };
      this.#post({ type: "start", options: this.options });
    });
  }

  #onMessage(message: FromWorker) {
    if (message.type === "result" || message.type === "error") {
      if (message.change) this.#applyChange(message.change);
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.type === "result") pending?.resolve(message.value);
      else pending?.reject(fromWire(message.error));
      if (this.exitInfo && this.#pending.size === 0) this.#retire();
    } else if (message.type === "exit") {
      this.exitInfo = message.info;
      // Helpers the server started (tsserver, daemons) share its process group.
      this.#signalGroup("SIGKILL");
      // The Worker has nothing left to do once the answers in flight (errors, sent after this
      // message) are in; a Worker left running would keep the process alive.
      if (this.#pending.size === 0) this.#retire();
      else this.#retireTimer = setTimeout(() => this.#retire(), RETIRE_AFTER_EXIT_MS);
      for (const handler of this.#exitHandlers) handler(message.info);
    }
  }

  #apply(snapshot: ClientSnapshot) {
    this.#snapshot = snapshot;
    this.#documents = new Map(snapshot.documents.map((doc) => [doc.uri, doc]));
  }

  #applyChange(change: ClientStateChange) {
    const { documents, closed, ...fields } = change;
    Object.assign(this.#snapshot, fields);
    for (const doc of documents ?? []) this.#documents.set(doc.uri, doc);
    for (const uri of closed ?? []) this.#documents.delete(uri);
  }

  #post(message: ToWorker) {
    if (!this.#terminated) this.#worker.postMessage(message);
  }

  #call<R>(method: CallableMethod, args: unknown[], signal?: AbortSignal): Promise<R> {
    if (this.#terminated) {
      return Promise.reject(
        new LspGateError("SERVER_EXITED", `${this.options.serverName} has been stopped`),
      );
    }
    const id = this.#nextId++;
    return new Promise<R>((resolve, reject) => {
      const onAbort = () => this.#post({ type: "cancel", id });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        resolve: (value) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value as R);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      this.#post({ type: "call", id, method, args, cancellable: signal !== undefined });
      if (signal?.aborted) onAbort();
    });
  }

  #failAll(error: LspGateError) {
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  /** Ends the Worker of a server that exited, failing whatever is still waiting. */
  #retire() {
    clearTimeout(this.#retireTimer);
    this.#terminate();
    const info = this.exitInfo;
    this.#failAll(
      new LspGateError(
        "SERVER_EXITED",
        `${this.options.serverName} exited` +
          (info ? (info.signal ? ` (killed by ${info.signal})` : ` with code ${info.code}`) : ""),
        { server: this.options.serverName, stderr: info?.stderr ?? [] },
      ),
    );
  }

  #terminate() {
    if (this.#terminated) return;
    this.#terminated = true;
    this.#worker.terminate();
  }

  /** The server's capabilities from initialize. */
  get capabilities(): proto.ServerCapabilities {
    return this.#snapshot.capabilities;
  }

  /** The negotiated position encoding. */
  get encoding(): PositionEncoding {
    return this.#snapshot.encoding;
  }

  /** The server's process id. */
  get pid(): number {
    return this.#snapshot.pid;
  }

  /** True once the server process has exited. */
  get exited(): boolean {
    return this.exitInfo !== undefined || this.#terminated;
  }

  /** Milliseconds since the server started. */
  get uptimeMs(): number {
    return Date.now() - this.#snapshot.startedAt;
  }

  /** True when the server offers pull diagnostics. */
  get pullsDiagnostics(): boolean {
    return this.supports("textDocument/diagnostic");
  }

  /** Work the server reported in progress, as of the last answer. */
  get activeProgress(): string[] {
    return this.#snapshot.activeProgress;
  }

  /** The documents the server has open, as of the last answer. */
  get documents(): { get(uri: string): OpenDocument | undefined; readonly size: number } {
    return this.#documents;
  }

  /** True when the server offers `method`, statically or by registration. */
  supports(method: string): boolean {
    return supportsMethod(this.#snapshot.capabilities, this.#snapshot.registeredMethods, method);
  }

  /** Sends a request through the Worker. */
  request<R = unknown>(
    method: string,
    params: unknown,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<R> {
    return this.#call<R>(
      "request",
      [method, params, { timeoutMs: options.timeoutMs }],
      options.signal,
    );
  }

  /** Sends a notification through the Worker. */
  notify(method: string, params: unknown): Promise<void> {
    return this.#call("notify", [method, params]);
  }

  /** See LspClient.syncDocument. */
  syncDocument(uri: string, languageId: string, text: string): Promise<OpenDocument> {
    return this.#call("syncDocument", [uri, languageId, text]);
  }

  /** See LspClient.closeDocument. */
  closeDocument(uri: string): Promise<void> {
    return this.#call("closeDocument", [uri]);
  }

  /** See LspClient.filesChanged. */
  filesChanged(changes: { uri: string; type: 1 | 2 | 3 }[]): Promise<void> {
    return this.#call("filesChanged", [changes]);
  }

  /** See LspClient.waitReady. */
  waitReady(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    // Once ready, always ready: no round trip to the Worker.
    if (this.#snapshot.ready) return Promise.resolve(true);
    return this.#call("waitReady", [timeoutMs], signal);
  }

  /** See LspClient.diagnostics. */
  diagnostics(uri: string, timeoutMs: number, signal?: AbortSignal): Promise<RawDiagnostics> {
    return this.#call("diagnostics", [uri, timeoutMs], signal);
  }

  /** See LspClient.published. */
  published(
    uri: string,
    items: proto.Diagnostic[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    return this.#call("published", [uri, items, timeoutMs], signal);
  }

  /** A snapshot for `status`, as of the last answer. */
  info(): ClientInfo {
    return { ...this.#snapshot.info, openDocuments: this.#documents.size };
  }

  /** Calls `handler` once when the server exits. */
  onExit(handler: (info: ExitInfo) => void): void {
    const info = this.exitInfo;
    if (info) queueMicrotask(() => handler(info));
    else this.#exitHandlers.push(handler);
  }

  /** Shuts the server down in its Worker, then ends the Worker. */
  async shutdown(graceMs = 2000): Promise<void> {
    if (this.#terminated) return;
    try {
      await this.#call("shutdown", [graceMs]);
    } catch {
      // A Worker that cannot shut its server down is ended below all the same.
    }
    this.#terminate();
    this.#signalGroup("SIGKILL");
    this.#failAll(new LspGateError("SERVER_EXITED", `${this.options.serverName} was shut down`));
  }

  /** Kills the server process (from inside its Worker) and its process group. */
  kill(signal: Deno.Signal = "SIGKILL"): void {
    this.#post({ type: "kill", signal });
    this.#signalGroup(signal);
  }

  /**
   * Signals the server's process group from the main thread: the Worker's scoped run permission
   * cannot signal a group, lspgate's own (unscoped `--allow-run`) can. Best effort.
   */
  #signalGroup(signal: Deno.Signal) {
    if (!this.#snapshot?.pid) return;
    try {
      Deno.kill(-this.#snapshot.pid, signal);
    } catch {
      // ESRCH: the group is empty. NotCapable: lspgate itself runs with a scoped --allow-run.
    }
  }
}

function fromWire(error: WireError): LspGateError {
  return new LspGateError(error.code as LspGateError["code"], error.message, error.data);
}
