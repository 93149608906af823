import assert from "node:assert/strict";
import { encodeMessage, FrameDecoder, type FrameDecoderOptions } from "./framing.ts";

const encoder = new TextEncoder();

/** Feeds the chunks through a decoder and collects the messages and the junk it reported. */
function decode(
  chunks: (Uint8Array | string)[],
  options: FrameDecoderOptions = {},
): { messages: unknown[]; junk: string[] } {
  const junk: string[] = [];
  const messages: unknown[] = [];
  const decoder = new FrameDecoder({ onJunk: (text) => junk.push(text), ...options });
  for (const chunk of chunks) {
    decoder.push(
      typeof chunk === "string" ? encoder.encode(chunk) : chunk,
      (m) => messages.push(m),
    );
  }
  decoder.finish();
  return { messages, junk };
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(
    parts.reduce((sum, part) => sum + part.length, 0),
  );
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}

function bytewise(bytes: Uint8Array): Uint8Array[] {
  return [...bytes].map((byte) => new Uint8Array([byte]));
}

const hello = {
  jsonrpc: "2.0",
  id: 1,
  method: "hello",
  params: { name: "world" },
};

Deno.test("encodeMessage() counts Content-Length in bytes, not characters", () => {
  const frame = new TextDecoder().decode(encodeMessage({ text: "→é😀" }));
  const body = JSON.stringify({ text: "→é😀" });
  assert.equal(
    frame,
    `Content-Length: ${encoder.encode(body).length}\r\n\r\n${body}`,
  );
  assert.notEqual(encoder.encode(body).length, body.length);
});

Deno.test("FrameDecoder parses a message split into single bytes", () => {
  const { messages, junk } = decode(bytewise(encodeMessage(hello)));
  assert.deepEqual(messages, [hello]);
  assert.deepEqual(junk, []);
});

Deno.test("FrameDecoder splits several messages merged into one chunk", () => {
  const many = [1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, result: id * 10 }));
  const { messages } = decode([concat(...many.map(encodeMessage))]);
  assert.deepEqual(messages, many);
});

Deno.test("FrameDecoder decodes multi-byte characters split inside a character", () => {
  const text = "a\u00a0b → c 😀 漢字 ";
  const frame = encodeMessage({ text });
  // Splitting at every byte cuts each multi-byte character somewhere inside it.
  const { messages } = decode([...bytewise(frame), ...bytewise(frame)]);
  assert.deepEqual(messages, [{ text }, { text }]);
  const cut = frame.length - 5; // after the first byte of the 3-byte `字`
  const split = decode([frame.subarray(0, cut), frame.subarray(cut)]);
  assert.deepEqual(split.messages, [{ text }]);
});

Deno.test("FrameDecoder reports junk lines before a header and parses the next message", () => {
  const { messages, junk } = decode([
    "Starting server v1.2\nindexing…\r\n",
    encodeMessage(hello),
  ]);
  assert.deepEqual(messages, [hello]);
  assert.deepEqual(junk, ["Starting server v1.2\nindexing…\r\n"]);
});

Deno.test("FrameDecoder accepts header names in any case and an extra Content-Type", () => {
  const body = JSON.stringify(hello);
  const { messages, junk } = decode([
    `content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH:${body.length}\r\n\r\n${body}`,
    `Content-Length: ${body.length}\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n${body}`,
  ]);
  assert.deepEqual(messages, [hello, hello]);
  assert.deepEqual(junk, []);
});

Deno.test("FrameDecoder drops a body that is not JSON and parses the next message", () => {
  const { messages, junk } = decode([
    "Content-Length: 9\r\n\r\n{not json",
    encodeMessage(hello),
  ]);
  assert.deepEqual(messages, [hello]);
  assert.deepEqual(junk, ["{not json"]);
});

Deno.test("FrameDecoder skips a header without a valid Content-Length to the next one", () => {
  const body = JSON.stringify(hello);
  const { messages, junk } = decode([
    `Content-Type: text/plain\r\n\r\n${body}`,
    `Content-Length: lots\r\n\r\n${body}`,
    encodeMessage(hello),
  ]);
  assert.deepEqual(messages, [hello]);
  assert.equal(junk.join("").includes("Content-Length: lots"), true);
  assert.equal(junk.join("").includes(body), true);
});

Deno.test("FrameDecoder skips a declared length above maxMessageBytes", () => {
  const { messages, junk } = decode(
    ["Content-Length: 1000\r\n\r\n", encodeMessage(hello)],
    { maxMessageBytes: 100 },
  );
  assert.deepEqual(messages, [hello]);
  assert.deepEqual(junk, ["Content-Length: 1000\r\n\r\n"]);
});

Deno.test("FrameDecoder drops endless junk without a header end instead of buffering it", () => {
  const line = encoder.encode("log line without a frame\n".repeat(1000));
  const { messages, junk } = decode([
    ...Array(10).fill(line),
    encodeMessage(hello),
  ]);
  assert.deepEqual(messages, [hello]);
  assert.equal(junk.length > 1, true);
});

Deno.test("FrameDecoder reports a truncated frame at the end of the stream", () => {
  const { messages, junk } = decode([
    'Content-Length: 50\r\n\r\n{"partial":',
  ]);
  assert.deepEqual(messages, []);
  assert.deepEqual(junk, ['{"partial":']);
});

Deno.test("FrameDecoder parses a 50 MB body", () => {
  const text = "x".repeat(50 * 1024 * 1024);
  const frame = encodeMessage({ jsonrpc: "2.0", id: 1, result: text });
  const chunkSize = 64 * 1024;
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < frame.length; offset += chunkSize) {
    chunks.push(frame.subarray(offset, offset + chunkSize));
  }
  const { messages } = decode(chunks);
  assert.equal(messages.length, 1);
  assert.equal((messages[0] as { result: string }).result.length, text.length);
});
