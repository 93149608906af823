/** The bytes that end a header block. */
export const HEADER_END = new Uint8Array([13, 10, 13, 10]);

/** Length of `content-length:`; a shorter tail may hold the start of that name. */
export const CONTENT_LENGTH_NAME_BYTES = 15;

/** What a header block says: how many leading bytes are junk, and the body length if valid. */
export interface HeaderBlock {
  junkBytes: number;
  contentLength?: number;
}

// windows-1252 maps each byte to one UTF-16 unit, so string offsets are byte offsets.
const latin1 = new TextDecoder("latin1");
const CONTENT_LENGTH_VALUE = /^[ \t]*(\d+)[ \t]*(?:\r?\n|$)/;
// Hyphenated names (Content-Type) only, so a log line like `INFO: ready` is reported as junk.
const HEADER_LINE = /^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+:[^\n]*\n$/;

/** Index of the first `\r\n\r\n` at or after `from`, or -1. */
export function indexOfHeaderEnd(bytes: Uint8Array, from: number): number {
  for (let i = bytes.indexOf(13, from); i >= 0; i = bytes.indexOf(13, i + 1)) {
    if (i + 3 >= bytes.length) return -1;
    if (bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

/** Index of the last `content-length:` (any case) in the bytes, or -1. */
export function lastIndexOfContentLength(bytes: Uint8Array): number {
  return latin1.decode(bytes).toLowerCase().lastIndexOf("content-length:");
}

/**
 * Reads a header block (without its `\r\n\r\n`) leniently: the last
 * `Content-Length:` wins, other headers are ignored, text before the headers is junk.
 */
export function parseHeaderBlock(block: Uint8Array): HeaderBlock {
  const text = latin1.decode(block);
  const at = text.toLowerCase().lastIndexOf("content-length:");
  if (at < 0) return { junkBytes: block.length };
  const value = CONTENT_LENGTH_VALUE.exec(
    text.slice(at + CONTENT_LENGTH_NAME_BYTES),
  );
  if (!value) return { junkBytes: block.length };
  return { junkBytes: headersStart(text, at), contentLength: Number(value[1]) };
}

/** Where the run of header lines that holds Content-Length (at `at`) begins. */
function headersStart(text: string, at: number): number {
  let lineStart = text.lastIndexOf("\n", at - 1) + 1;
  // Text on the same line before the header: an unframed body or a log line without newline.
  if (lineStart < at) return at;
  while (lineStart > 0) {
    const previous = text.lastIndexOf("\n", lineStart - 2) + 1;
    if (!HEADER_LINE.test(text.slice(previous, lineStart))) break;
    lineStart = previous;
  }
  return lineStart;
}
