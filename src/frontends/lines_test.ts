import assert from "node:assert/strict";
import { type ByteSource, LineWriter, readLines, type TooLong } from "./lines.ts";

function streamOf(text: string, chunk: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += chunk) controller.enqueue(bytes.slice(i, i + chunk));
      controller.close();
    },
  });
}

/** A source read as Deno.stdin is (`read` into the caller's buffer), `chunk` bytes at most a call. */
function readerOf(text: string, chunk: number): ByteSource {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return {
    read(buffer: Uint8Array) {
      if (at >= bytes.length) return Promise.resolve(null);
      const n = Math.min(chunk, buffer.length, bytes.length - at);
      buffer.set(bytes.subarray(at, at + n));
      at += n;
      return Promise.resolve(n);
    },
  };
}

/** The lines of `text` read through a stream and through `read`: both must agree. */
async function lines(text: string, chunk: number, max?: number) {
  const read = async (source: ByteSource) => {
    const out: (string | TooLong)[] = [];
    for await (const line of readLines(source, max)) out.push(line);
    return out;
  };
  const fromStream = await read(streamOf(text, chunk));
  assert.deepEqual(await read(readerOf(text, chunk)), fromStream);
  return fromStream;
}

Deno.test("readLines() splits at \\n and \\r\\n across any chunking, the last line without \\n too", async () => {
  for (const chunk of [1, 2, 3, 7, 1024]) {
    assert.deepEqual(await lines('{"a":1}\r\n\n{"b":"é"}\nlast', chunk), [
      '{"a":1}',
      "",
      '{"b":"é"}',
      "last",
    ]);
  }
});

Deno.test("readLines() drops a line past the limit, reports its length, and reads the next", async () => {
  const long = "x".repeat(100);
  for (const chunk of [1, 9, 64]) {
    assert.deepEqual(await lines(`a\n${long}\nb\n${long}`, chunk, 50), [
      "a",
      { tooLong: 100 },
      "b",
      { tooLong: 100 },
    ]);
    // A CRLF line's length is its text's, as a kept line's text has no `\r`.
    assert.deepEqual(await lines(`${long}\r\nb\r\n${long}\r\n`, chunk, 50), [
      { tooLong: 100 },
      "b",
      { tooLong: 100 },
    ]);
  }
});

Deno.test("readLines() reports a dropped line's top-level id, where it is before the limit or after it", async () => {
  const params = { text: "x".repeat(100) };
  const first = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params });
  const last = JSON.stringify({ method: "tools/call", params, jsonrpc: "2.0", id: "b" });
  for (const chunk of [1, 9, 64]) {
    assert.deepEqual(await lines(`${first}\n{"id":1}\n${last}\n${last}`, chunk, 50), [
      { tooLong: first.length, id: 3 },
      '{"id":1}',
      { tooLong: last.length, id: "b" },
      { tooLong: last.length, id: "b" },
    ]);
  }
});

Deno.test("readLines() splits a 15 MB line in well under a second (each chunk searched once)", async () => {
  const first = JSON.stringify({ id: 1, pad: "x".repeat(15_000_000) });
  const text = `${first}\n{"id":2}\n`;
  const started = performance.now();
  const out = await lines(text, 65536);
  const ms = performance.now() - started;
  assert.deepEqual(out.map((l) => typeof l === "string" ? l.length : l), [first.length, 8]);
  // Searched from the start at every chunk, this took ~4 s.
  assert.ok(ms < 1500, `${Math.round(ms)} ms`);
});

Deno.test("LineWriter writes whole lines, in order, to a sink that takes a few bytes a call", async () => {
  const taken: number[] = [];
  const sink = {
    write(bytes: Uint8Array) {
      const n = Math.min(3, bytes.length);
      taken.push(...bytes.subarray(0, n));
      return Promise.resolve(n);
    },
  };
  const writer = new LineWriter(sink);
  await Promise.all([writer.write('{"id":1,"é":true}'), writer.write('{"id":2}')]);
  await writer.close();
  assert.equal(new TextDecoder().decode(new Uint8Array(taken)), '{"id":1,"é":true}\n{"id":2}\n');
});

Deno.test("LineWriter stops writing to a sink that broke, without throwing", async () => {
  let calls = 0;
  const writer = new LineWriter({
    write() {
      calls++;
      return Promise.reject(new Deno.errors.BrokenPipe("gone"));
    },
  });
  await writer.write("one");
  await writer.write("two");
  await writer.close();
  assert.equal(calls, 1);
});
