import { ByteBuffer } from "./byte_buffer.ts";
import {
  CONTENT_LENGTH_NAME_BYTES,
  HEADER_END,
  indexOfHeaderEnd,
  lastIndexOfContentLength,
  parseHeaderBlock,
} from "./header.ts";

/** Options of {@linkcode FrameDecoderStream}. */
export interface FrameDecoderOptions {
  /** Called with text that was skipped: output that is not a frame, or a body that is not JSON. */
  onJunk?: (text: string) => void;
  /** Largest body accepted; a larger declared Content-Length is reported as junk. */
  maxMessageBytes?: number;
}

/** Default largest body: far above any real LSP message, low enough to refuse a garbage length. */
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

// Beyond this without a `\r\n\r\n`, buffered output is junk and is reported and dropped.
const MAX_HEADER_BYTES = 64 * 1024;
const MAX_JUNK_REPORT_CHARS = 4096;
const encoder = new TextEncoder();
const utf8 = new TextDecoder();

/** Frames a message as `Content-Length: N\r\n\r\n` and its UTF-8 JSON body, N in bytes. */
export function encodeMessage(message: unknown): Uint8Array<ArrayBuffer> {
  const body = encoder.encode(JSON.stringify(message));
  const header = encoder.encode(`Content-Length: ${body.length}\r\n\r\n`);
  const frame = new Uint8Array(header.length + body.length);
  frame.set(header);
  frame.set(body, header.length);
  return frame;
}

/**
 * Parses Content-Length framed JSON messages from byte chunks, skipping junk instead of failing.
 * The reader pushes chunks itself: a connection dispatches each message as its chunk is parsed,
 * without a TransformStream's enqueue and read per chunk on the way (~0.1 ms of stream machinery
 * per server answer, profiled). Nor is one declared here: a class extending TransformStream at a
 * module's top loads Deno's web streams (~4 ms) wherever this module is imported.
 */
export class FrameDecoder {
  readonly #onJunk?: (text: string) => void;
  readonly #maxMessageBytes: number;
  // Bytes before a complete header block: a partial header or junk.
  readonly #pending = new ByteBuffer();
  // Bytes of #pending already searched for `\r\n\r\n`, so byte-sized chunks are not rescanned.
  #scanned = 0;
  // The body being filled when its frame spans chunks; allocated once at its declared size.
  #body?: Uint8Array;
  #bodyFilled = 0;

  constructor(options: FrameDecoderOptions = {}) {
    this.#onJunk = options.onJunk;
    this.#maxMessageBytes = options.maxMessageBytes ??
      DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** Parses what `chunk` completes, calling `emit` with each message in order. */
  push(chunk: Uint8Array, emit: (message: unknown) => void): void {
    const offset = this.#body ? this.#fillBody(chunk, emit) : 0;
    if (offset === chunk.length) return;
    if (this.#pending.length === 0) {
      const rest = chunk.subarray(offset);
      this.#pending.append(rest.subarray(this.#parse(rest, emit)));
    } else {
      this.#pending.append(chunk.subarray(offset));
      this.#pending.consume(this.#parse(this.#pending.view(), emit));
    }
  }

  /** The stream ended: what is left (a truncated frame, junk) is reported as junk. */
  finish(): void {
    if (this.#body) this.#junk(this.#body.subarray(0, this.#bodyFilled));
    this.#junk(this.#pending.view());
    this.#body = undefined;
    this.#pending.consume(this.#pending.length);
    this.#scanned = 0;
  }

  /** Parses every complete frame in `bytes`, returning how many bytes were consumed. */
  #parse(bytes: Uint8Array, emit: (message: unknown) => void): number {
    let start = 0;
    while (start < bytes.length) {
      const end = indexOfHeaderEnd(bytes, start + this.#scanned);
      if (end < 0) {
        start = this.#dropOverflow(bytes, start);
        this.#scanned = Math.max(
          0,
          bytes.length - start - (HEADER_END.length - 1),
        );
        return start;
      }
      this.#scanned = 0;
      const bodyStart = end + HEADER_END.length;
      const header = parseHeaderBlock(bytes.subarray(start, end));
      const length = header.contentLength;
      if (length === undefined || length > this.#maxMessageBytes) {
        // Skip to the next plausible header; the body, if any, is reported as junk on the way.
        this.#junk(bytes.subarray(start, bodyStart));
        start = bodyStart;
        continue;
      }
      this.#junk(bytes.subarray(start, start + header.junkBytes));
      if (bytes.length - bodyStart < length) {
        this.#body = new Uint8Array(length);
        this.#body.set(bytes.subarray(bodyStart));
        this.#bodyFilled = bytes.length - bodyStart;
        return bytes.length;
      }
      this.#emitBody(bytes.subarray(bodyStart, bodyStart + length), emit);
      start = bodyStart + length;
    }
    return start;
  }

  /** Copies the start of `chunk` into the body being filled; returns the bytes taken. */
  #fillBody(chunk: Uint8Array, emit: (message: unknown) => void): number {
    const body = this.#body!;
    const taken = Math.min(body.length - this.#bodyFilled, chunk.length);
    body.set(chunk.subarray(0, taken), this.#bodyFilled);
    this.#bodyFilled += taken;
    if (this.#bodyFilled === body.length) {
      this.#body = undefined;
      this.#emitBody(body, emit);
    }
    return taken;
  }

  /** Drops junk once too much is buffered without a header end, keeping a possible header start. */
  #dropOverflow(bytes: Uint8Array, start: number): number {
    if (bytes.length - start <= MAX_HEADER_BYTES) return start;
    const header = start + lastIndexOfContentLength(bytes.subarray(start));
    const keepFrom = header > start && bytes.length - header <= MAX_HEADER_BYTES
      ? header
      : bytes.length - (CONTENT_LENGTH_NAME_BYTES - 1);
    this.#junk(bytes.subarray(start, keepFrom));
    return keepFrom;
  }

  #emitBody(body: Uint8Array, emit: (message: unknown) => void): void {
    const text = utf8.decode(body);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.#report(text);
      return;
    }
    emit(message);
  }

  #junk(bytes: Uint8Array): void {
    if (bytes.length > 0) this.#report(utf8.decode(bytes));
  }

  #report(text: string): void {
    // Blank lines between frames (some servers end a body with a newline) are not worth reporting.
    if (!this.#onJunk || text.trim() === "") return;
    this.#onJunk(
      text.length > MAX_JUNK_REPORT_CHARS ? `${text.slice(0, MAX_JUNK_REPORT_CHARS)}…` : text,
    );
  }
}
