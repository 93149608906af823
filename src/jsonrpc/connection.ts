import { LspGateError } from "../errors.ts";
import { encodeMessage, FrameDecoder } from "./framing.ts";
import { deadlines } from "../deadlines.ts";
import {
  classify,
  ErrorCodes,
  errorMessage,
  readWireError,
  replyTo,
  type RequestHandler,
} from "./messages.ts";
import type { Transport } from "./transport.ts";

/** Options of {@linkcode JsonRpcConnection}. */
export interface ConnectionOptions {
  /** Timeout of requests that set none; 0 or unset means no timeout. */
  defaultTimeoutMs?: number;
  /** Called with peer output that is not a JSON-RPC message. */
  onJunk?: (text: string) => void;
  /** A name for this connection, put in error data. */
  name?: string;
  /**
   * Most requests sent and unanswered at once; more wait here, in order, for a free slot (their
   * timeouts and cancels apply while they wait). Unset: no limit.
   */
  maxInFlight?: number;
}

/** Options of {@linkcode JsonRpcConnection.sendRequest}. */
export interface RequestOptions {
  /** Overrides the default timeout; 0 means no timeout. */
  timeoutMs?: number;
  /** Aborting cancels the request: `$/cancelRequest` is sent and it rejects CANCELLED. */
  signal?: AbortSignal;
}

/** Receives a notification from the peer. */
export type NotificationHandler = (method: string, params: unknown) => void;

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: LspGateError) => void;
  dispose: () => void;
}

/** JSON-RPC 2.0 over a Content-Length framed byte stream: requests, notifications, timeouts, close. */
export class JsonRpcConnection {
  /** Resolves once the connection is closed; never rejects. */
  readonly closed: Promise<void>;
  readonly #transport: Transport;
  readonly #options: ConnectionOptions;
  readonly #pending = new Map<number, Pending>();
  readonly #closeHandlers: ((reason: string) => void)[] = [];
  #resolveClosed!: () => void;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  // Each write waits for the previous one so frames never interleave.
  #writeChain: Promise<void> = Promise.resolve();
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  #nextId = 1;
  #closeReason?: string;
  /** Ids of requests written and not yet answered, abandoned or failed (see maxInFlight). */
  readonly #sent = new Set<number>();
  /** Requests waiting for a slot, in the order they were asked. */
  readonly #waiting: { id: number; send: () => void }[] = [];
  #requestHandler?: RequestHandler;
  #notificationHandler?: NotificationHandler;

  /** Wraps a transport; nothing is read until {@linkcode listen}. */
  constructor(transport: Transport, options: ConnectionOptions = {}) {
    this.#transport = transport;
    this.#options = options;
    this.closed = new Promise((resolve) => this.#resolveClosed = resolve);
  }

  /** True once the connection is closed (nothing more can be sent). */
  get isClosed(): boolean {
    return this.#closeReason !== undefined;
  }

  /** Starts reading messages from the peer. */
  listen(): void {
    if (this.#reader || this.#closeReason !== undefined) return;
    this.#reader = this.#transport.readable.getReader();
    this.#readLoop(this.#reader, new FrameDecoder({ onJunk: this.#options.onJunk }));
  }

  /** Sends a request and resolves with its result; rejects TIMEOUT, CANCELLED, LSP_ERROR or SERVER_EXITED. */
  sendRequest<R = unknown>(
    method: string,
    params?: unknown,
    options: RequestOptions = {},
  ): Promise<R> {
    if (this.#closeReason !== undefined) {
      return Promise.reject(this.#closedError(method));
    }
    if (options.signal?.aborted) return Promise.reject(cancelledError(method));
    const id = this.#nextId++;
    let frame: Uint8Array;
    try {
      frame = encodeMessage({ jsonrpc: "2.0", id, method, params });
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<R>((resolve, reject) => {
      let clearDeadline: (() => void) | undefined;
      const onAbort = () => this.#abandon(id, cancelledError(method));
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        method,
        resolve: resolve as (result: unknown) => void,
        reject,
        dispose: () => {
          clearDeadline?.();
          options.signal?.removeEventListener("abort", onAbort);
        },
      });
      // A failed write closes the connection; this request never reached the peer, and says so
      // (data.notSent) so a caller may ask a restarted peer without asking twice.
      const send = () => {
        this.#sent.add(id);
        this.#write(frame, (reason) => {
          const error = this.#closedError(method, reason);
          this.#take(id)?.reject(
            new LspGateError(error.code, error.message, { ...error.data, notSent: true }),
          );
        }).catch(() => {});
      };
      const max = this.#options.maxInFlight;
      if (max === undefined || this.#sent.size < max) send();
      else this.#waiting.push({ id, send });
      // After the write has begun: a process's first timer loads Deno's timers (6–9 ms), which
      // then runs while a server just spawned reads its initialize.
      const timeoutMs = options.timeoutMs ?? this.#options.defaultTimeoutMs ?? 0;
      if (timeoutMs > 0 && this.#pending.has(id)) {
        clearDeadline = deadlines.add(
          timeoutMs,
          () => this.#abandon(id, timeoutError(method, timeoutMs)),
        );
      }
    });
  }

  /**
   * Sends a notification; resolves once queued, in order, before anything sent after it, and
   * rejects SERVER_EXITED if the connection is closed. Not once written: a server busy elsewhere
   * that stops reading its stdin (pyright on a 50 MB file) left a didOpen's write, and with it the
   * request it came before, waiting forever, before that request's own timeout had started. A
   * write that fails closes the connection, and what follows says SERVER_EXITED.
   */
  sendNotification(method: string, params?: unknown): Promise<void> {
    if (this.#closeReason !== undefined) return Promise.reject(this.#closedError(method));
    let frame: Uint8Array;
    try {
      frame = encodeMessage({ jsonrpc: "2.0", method, params });
    } catch (error) {
      return Promise.reject(error);
    }
    this.#write(frame).catch(() => {});
    return Promise.resolve();
  }

  /** Sets the handler of requests from the peer; without one they are answered MethodNotFound. */
  onRequest(handler: RequestHandler): void {
    this.#requestHandler = handler;
  }

  /** Sets the handler of notifications from the peer, `$/cancelRequest` included. */
  onNotification(handler: NotificationHandler): void {
    this.#notificationHandler = handler;
  }

  /** Adds a handler called once with the reason the connection closed. */
  onClose(handler: (reason: string) => void): void {
    const reason = this.#closeReason;
    if (reason === undefined) this.#closeHandlers.push(handler);
    else queueMicrotask(() => handler(reason));
  }

  /** Closes the connection: pending requests reject SERVER_EXITED, the streams are released. */
  close(reason = "closed by client"): void {
    this.#shutdown(reason);
  }

  async #readLoop(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    decoder: FrameDecoder,
  ): Promise<void> {
    let reason = "stream ended";
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        decoder.push(value, (message) => this.#dispatch(message));
      }
      decoder.finish();
    } catch (error) {
      reason = `read failed: ${errorMessage(error)}`;
    }
    this.#shutdown(reason);
  }

  #dispatch(raw: unknown): void {
    const message = classify(raw);
    switch (message.kind) {
      case "request":
        this.#answer(message.id, message.method, message.params);
        return;
      case "notification":
        this.#notify(message.method, message.params);
        return;
      case "response":
        this.#settle(message.id, message.result, message.error);
        return;
      case "junk":
        this.#options.onJunk?.(JSON.stringify(raw));
    }
  }

  #settle(rawId: number | string, result: unknown, error: unknown): void {
    // Lenient: a server may echo our integer id back as a string.
    const id = typeof rawId === "number" ? rawId : Number(rawId);
    const pending = this.#take(id);
    if (!pending) return;
    if (error === undefined || error === null) {
      pending.resolve(result);
      return;
    }
    const wire = readWireError(error);
    pending.reject(new LspGateError("LSP_ERROR", wire.message, wire));
  }

  #notify(method: string, params: unknown): void {
    try {
      const result: unknown = this.#notificationHandler?.(method, params);
      // An async handler's rejection must not become an unhandled rejection.
      if (result instanceof Promise) result.catch(() => {});
    } catch {
      // A failing handler is the layer above's bug; it must not stop the read loop.
    }
  }

  async #answer(
    id: number | string,
    method: string,
    params: unknown,
  ): Promise<void> {
    const reply = await replyTo(this.#requestHandler, method, params);
    if (this.#closeReason !== undefined) return;
    let frame: Uint8Array;
    try {
      frame = encodeMessage({ jsonrpc: "2.0", id, ...reply });
    } catch (error) {
      const data = {
        code: ErrorCodes.InternalError,
        message: errorMessage(error),
      };
      frame = encodeMessage({ jsonrpc: "2.0", id, error: data });
    }
    this.#write(frame).catch(() => {});
  }

  /** Rejects a pending request locally and tells the peer it may stop working on it. */
  #abandon(id: number, error: LspGateError): void {
    const wasSent = this.#sent.has(id);
    const pending = this.#take(id);
    if (!pending) return;
    pending.reject(error);
    // One still waiting for a slot never reached the peer: nothing to cancel there.
    if (this.#closeReason !== undefined || !wasSent) return;
    const cancel = {
      jsonrpc: "2.0",
      method: "$/cancelRequest",
      params: { id },
    };
    this.#write(encodeMessage(cancel)).catch(() => {});
  }

  #take(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    pending.dispose();
    if (this.#sent.delete(id)) this.#sendWaiting();
    return pending;
  }

  /** Sends the requests waiting for a slot while slots are free (those given up meanwhile are skipped). */
  #sendWaiting(): void {
    const max = this.#options.maxInFlight ?? Infinity;
    while (this.#sent.size < max && this.#waiting.length > 0) {
      const next = this.#waiting.shift()!;
      if (this.#pending.has(next.id) && this.#closeReason === undefined) next.send();
    }
  }

  #write(frame: Uint8Array, onFail?: (reason: string) => void): Promise<void> {
    this.#writer ??= this.#transport.writable.getWriter();
    const writer = this.#writer;
    const written = this.#writeChain.then(() => writer.write(frame));
    // A broken pipe closes the connection instead of crashing the process.
    this.#writeChain = written.catch((error) => {
      const reason = `write failed: ${errorMessage(error)}`;
      onFail?.(reason);
      this.#shutdown(reason);
    });
    return written;
  }

  #shutdown(reason: string): void {
    if (this.#closeReason !== undefined) return;
    this.#closeReason = reason;
    for (const [id, { method }] of [...this.#pending]) {
      this.#take(id)?.reject(this.#closedError(method));
    }
    this.#releaseStreams(reason);
    for (const handler of this.#closeHandlers.splice(0)) {
      try {
        handler(reason);
      } catch {
        // One failing close handler must not keep the others from running.
      }
    }
    this.#resolveClosed();
  }

  #releaseStreams(reason: string): void {
    if (this.#reader) this.#reader.cancel(reason).catch(() => {});
    else if (!this.#transport.readable.locked) {
      this.#transport.readable.cancel(reason).catch(() => {});
    }
    // Queued writes (an `exit` notification) still go out before the stream closes.
    this.#writeChain = this.#writeChain.then(async () => {
      if (this.#writer) await this.#writer.close();
      else if (!this.#transport.writable.locked) {
        await this.#transport.writable.close();
      }
    }).catch(() => {});
  }

  #closedError(method?: string, reason = this.#closeReason): LspGateError {
    const data = { reason, method, connection: this.#options.name };
    return new LspGateError("SERVER_EXITED", `connection closed: ${reason}`, data);
  }
}

function timeoutError(method: string, timeoutMs: number): LspGateError {
  return new LspGateError(
    "TIMEOUT",
    `${method} timed out after ${timeoutMs} ms`,
    {
      method,
      timeoutMs,
    },
  );
}

function cancelledError(method: string): LspGateError {
  return new LspGateError("CANCELLED", `${method} was cancelled`, { method });
}
