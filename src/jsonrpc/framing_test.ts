import assert from "node:assert/strict";
import { encodeMessage, type FrameDecoderOptions, FrameDecoderStream } from "./framing.ts";

const encoder = new TextEncoder();

/** Feeds the chunks through a decoder and collects the messages and the junk it reported. */
async function decode(
  chunks: (Uint8Array | string)[],
  options: FrameDecoderOptions = {},
): Promise<{ messages: unknown[]; junk: string[] }> {
  const junk: string[] = [];
  const source = ReadableStream.from(
    chunks.map((chunk) => typeof chunk === "string" ? encoder.encode(chunk) : chunk),
  );
  const decoder = new FrameDecoderStream({
    onJunk: (text) => junk.push(text),
    ...options,
  });
  const messages = await Array.fromAsync(source.pipeThrough(decoder));
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

Deno.test("FrameDecoderStream parses a message split into single bytes", async () => {
  const { messages, junk } = await decode(bytewise(encodeMessage(hello)));
  assert.deepEqual(messages, [hello]);
  assert.deepEqual(junk, []);
});

Deno.test("FrameDecoderStream splits several messages merged into one chunk", async () => {
  const many = [1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, result: id * 10 }));
  const { messages } = await decode([concat(...many.map(encodeMessage))]);
  assert.deepEqual(messages, many);
});

Deno.test("FrameDecoderStream decodes multi-byte characters split inside a character", async () => {
  const text = "a\u00a0b → c 😀 漢字 ";
  const frame = encodeMessage({ text });
  // Splitting at every byte cuts each multi-byte character somewhere inside it.
  const { messages } = await decode([...bytewise(frame), ...bytewise(frame)]);
  assert.deepEqual(messages, [{ text }, { text }]);
  const cut = frame.length - 5; // after the first byte of the 3-byte `字`
  const split = await decode([frame.subarray(0, cut), frame.subarray(cut)]);
  assert.deepEqual(split.messages, [{ text }]);
});

Deno.test("FrameDecoderStream reports junk lines before a header and parses the next message", async () => {
  const { messages, junk } = await decode([
    "Starting server v1.2\nindexing…\r\n",
    encodeMessage(hello),
  ]);
  assert.deepEqual(messages, [hello]);
  assert.deepEqual(junk, ["Starting server v1.2\nindexing…\r\n"]);
});

Deno.test("FrameDecoderStream accepts header names in any case and an extra Content-Type", async () => {
  const body = JSON.stringify(hello);
  const { messages, junk } = await decode([
    `content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH:${body.length}\r\n\r\n${body}`,
    `Content-Length: ${body.length}\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n${body}`,
  ]);
  assert.deepEqual(messages, [hello, hello]);
  assert.deepEqual(junk, []);
});

Deno.test("FrameDecoderStream drops a body that is not JSON and parses the next message", async () => {
  const { messages, junk } = await decode([
    "Content-Length: 9\r\n\r\n{not json",
    encodeMessage(hello),
  ]);
  assert.deepEqual(messages, [hello]);
  assert.deepEqual(junk, ["{not json"]);
});

Deno.test("FrameDecoderStream skips a header without a valid Content-Length to the next one", async () => {
  const body = JSON.stringify(hello);
  const { messages, junk } = await decode([
    `Content-Type: text/plain\r\n\r\n${body}`,
    `Content-Length: lots\r\n\r\n${body}`,
    encodeMessage(hello),
  ]);
  assert.deepEqual(messages, [hello]);
  assert.equal(junk.join("").includes("Content-Length: lots"), true);
  assert.equal(junk.join("").includes(body), true);
});

Deno.test("FrameDecoderStream skips a declared length above maxMessageBytes", async () => {
  const { messages, junk } = await decode(
    ["Content-Length: 1000\r\n\r\n", encodeMessage(hello)],
    { maxMessageBytes: 100 },
  );
  assert.deepEqual(messages, [hello]);
  assert.deepEqual(junk, ["Content-Length: 1000\r\n\r\n"]);
});

Deno.test("FrameDecoderStream drops endless junk without a header end instead of buffering it", async () => {
  const line = encoder.encode("log line without a frame\n".repeat(1000));
  const { messages, junk } = await decode([
    ...Array(10).fill(line),
    encodeMessage(hello),
  ]);
  assert.deepEqual(messages, [hello]);
  assert.equal(junk.length > 1, true);
});

Deno.test("FrameDecoderStream reports a truncated frame at the end of the stream", async () => {
  const { messages, junk } = await decode([
    'Content-Length: 50\r\n\r\n{"partial":',
  ]);
  assert.deepEqual(messages, []);
  assert.deepEqual(junk, ['{"partial":']);
});

Deno.test("FrameDecoderStream parses a 50 MB body", async () => {
  const text = "x".repeat(50 * 1024 * 1024);
  const frame = encodeMessage({ jsonrpc: "2.0", id: 1, result: text });
  const chunkSize = 64 * 1024;
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < frame.length; offset += chunkSize) {
    chunks.push(frame.subarray(offset, offset + chunkSize));
  }
  const { messages } = await decode(chunks);
  assert.equal(messages.length, 1);
  assert.equal((messages[0] as { result: string }).result.length, text.length);
});
