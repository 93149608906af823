import assert from "node:assert/strict";
import { readLines } from "./lines.ts";

function streamOf(text: string, chunk: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += chunk) controller.enqueue(bytes.slice(i, i + chunk));
      controller.close();
    },
  });
}

async function lines(text: string, chunk: number, max?: number) {
  const out: (string | { tooLong: number })[] = [];
  for await (const line of readLines(streamOf(text, chunk), max)) out.push(line);
  return out;
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
