// MCP over stdio, one JSON-RPC message a line, with our own framing. The SDK's stdio transport
// closes itself when its read buffer passes 10 MiB (every later call then fails "Not connected")
// and drops a line that is not JSON unanswered; here a message too large is skipped as it streams
// in and answered with a JSON-RPC error under its id, a line that is not JSON gets a parse error,
// and the server keeps serving, as the JSON-lines front end does.
import type { Readable, Writable } from "node:stream";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { IdScanner } from "./id_scanner.ts";

/** Largest MCP message read (10 MiB, the SDK's own limit); a larger one is answered with an error. */
export const MAX_MCP_MESSAGE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

/** A stdio Transport that survives oversize and malformed messages. */
export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #chunks: Uint8Array[] = [];
  #size = 0;
  /** Set while skipping a message past the limit: what it says of its id so far. */
  #skipping?: IdScanner;
  #closed = false;
  /** Requests delivered and not yet answered, by id (as JSON: 1 and "1" differ). */
  #unanswered = new Set<string>();
  #onSettled: (() => void)[] = [];

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly maxBytes = MAX_MCP_MESSAGE_BYTES,
  ) {}

  /** Starts reading stdin. */
  start(): Promise<void> {
    this.stdin.on("data", this.#onData);
    this.stdin.on("error", this.#onError);
    this.stdin.once("end", this.#onEnd);
    return Promise.resolve();
  }

  /**
   * Resolves once every request delivered so far is answered: a client that writes its calls and
   * then closes stdin (`printf … | lspgate mcp`) still gets every answer, as on JSON lines.
   */
  settled(): Promise<void> {
    if (this.#unanswered.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#onSettled.push(resolve));
  }

  /** Writes one message as a line; resolves once the stream took it. */
  send(message: JSONRPCMessage): Promise<void> {
    const answer = message as { id?: unknown; method?: unknown };
    if (answer.method === undefined) this.#answered(answer.id);
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + "\n")) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  /** Stops reading and says so once. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.stdin.off("data", this.#onData);
    this.stdin.off("error", this.#onError);
    this.stdin.off("end", this.#onEnd);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.#chunks = [];
    this.onclose?.();
    return Promise.resolve();
  }

  /** Notes that request `id` needs no more answer; the last one settles. */
  #answered(id: unknown): void {
    if (id === undefined || !this.#unanswered.delete(JSON.stringify(id))) return;
    if (this.#unanswered.size === 0) this.#onSettled.splice(0).forEach((resolve) => resolve());
  }

  /** The last line may end with stdin instead of a newline (`printf '…'`): it is read too. */
  #onEnd = () => {
    if (this.#size > 0 || this.#skipping) this.#endLine();
  };

  #onError = (error: Error) => this.onerror?.(error);

  #onData = (data: Uint8Array | string) => {
    let chunk = typeof data === "string" ? new TextEncoder().encode(data) : data;
    while (chunk.length > 0) {
      const newline = chunk.indexOf(NEWLINE);
      const part = newline === -1 ? chunk : chunk.subarray(0, newline);
      chunk = newline === -1 ? chunk.subarray(chunk.length) : chunk.subarray(newline + 1);
      this.#take(part);
      if (newline !== -1) this.#endLine();
    }
  };

  #take(part: Uint8Array): void {
    this.#size += part.length;
    if (this.#skipping) {
      this.#skipping.feed(part);
      return;
    }
    if (this.#size > this.maxBytes) {
      // Past the limit: what came so far and what follows only tell the id, then go.
      this.#skipping = new IdScanner();
      for (const held of this.#chunks) this.#skipping.feed(held);
      this.#skipping.feed(part);
      this.#chunks = [];
      return;
    }
    // Copied: the stream may reuse its buffer.
    this.#chunks.push(part.slice());
  }

  #endLine(): void {
    const size = this.#size;
    const skipped = this.#skipping;
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#size = 0;
    this.#skipping = undefined;
    if (skipped) {
      this.#reply(skipped.id ?? null, -32600, tooLarge(size, this.maxBytes));
      return;
    }
    const text = new TextDecoder().decode(concat(chunks, size)).replace(/\r$/, "");
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.#reply(null, -32700, `Parse error: ${(error as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      const known = typeof id === "string" || typeof id === "number" ? id : null;
      this.#reply(known, -32600, "Invalid Request: not a JSON-RPC 2.0 message");
      return;
    }
    const invalid = invalidParams(parsed.data);
    if (invalid !== undefined) {
      this.#reply((parsed.data as { id: string | number }).id, -32602, invalid);
      return;
    }
    const request = parsed.data as { id?: unknown; method?: unknown; params?: unknown };
    if (request.id !== undefined && typeof request.method === "string") {
      this.#unanswered.add(JSON.stringify(request.id));
    } else if (request.method === "notifications/cancelled") {
      // A cancelled request gets no answer (MCP's rule, kept by the SDK): none is waited for.
      this.#answered((request.params as { requestId?: unknown } | undefined)?.requestId);
    }
    this.onmessage?.(parsed.data);
  }

  #reply(id: string | number | null, code: number, message: string): void {
    // An error answers a request; `id: null` where the request's id could not be read.
    this.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage)
      .catch(() => {});
  }
}

/**
 * The SDK answers a request of a method it serves whose params break that method's schema
 * (`tools/call` with `arguments: null`) with -32603 Internal error; such a request is the
 * client's mistake: Invalid params, with what is wrong.
 */
const REQUESTS = new Map<
  string,
  { safeParse(value: unknown): { success: boolean; error?: unknown } }
>(
  [
    ["initialize", InitializeRequestSchema],
    ["tools/list", ListToolsRequestSchema],
    ["tools/call", CallToolRequestSchema],
  ],
);

function invalidParams(message: JSONRPCMessage): string | undefined {
  const { id, method } = message as { id?: unknown; method?: unknown };
  if (id === undefined || typeof method !== "string") return undefined;
  const schema = REQUESTS.get(method);
  const checked = schema?.safeParse(message);
  if (!checked || checked.success) return undefined;
  const issues =
    (checked.error as { issues?: { path: PropertyKey[]; message: string }[] }).issues ?? [];
  const said = issues.map((i) => `${i.path.map(String).join(".")}: ${i.message}`).join("; ");
  return `Invalid params for ${method}: ${said || "params do not match the method's schema"}`;
}

function tooLarge(size: number, max: number): string {
  return `Invalid Request: the message is ${size} bytes, more than the ${max} bytes ` +
    `(${max / 1024 / 1024} MiB) one message may be; it was not read. Send less (e.g. smaller ` +
    "content or edits).";
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
