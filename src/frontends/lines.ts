/** Splits a byte stream into text lines (UTF-8, `\n` or `\r\n`), the last one even without `\n`. */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  maxLineChars = 16 * 1024 * 1024,
): AsyncGenerator<string | { tooLong: number }> {
  // The pieces of the line so far: each chunk is searched once, and joined once at its newline
  // (a 15 MB line searched from its start at every chunk took seconds of the main thread).
  let pieces: string[] = [];
  let pending = 0;
  let skipping = 0;
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    let start = 0;
    let newline: number;
    while ((newline = chunk.indexOf("\n", start)) !== -1) {
      pieces.push(chunk.slice(start, newline));
      const line = pieces.join("").replace(/\r$/, "");
      pieces = [];
      pending = 0;
      start = newline + 1;
      if (skipping) {
        yield { tooLong: skipping + line.length };
        skipping = 0;
      } else {
        yield line;
      }
    }
    if (start < chunk.length) {
      pieces.push(chunk.slice(start));
      pending += chunk.length - start;
    }
    // A line without end that grows past the limit is dropped, and reported once it ends.
    if (pending > maxLineChars) {
      skipping += pending;
      pieces = [];
      pending = 0;
    }
  }
  if (skipping) yield { tooLong: skipping + pending };
  else if (pending) yield pieces.join("");
}

/** Writes lines one at a time so concurrent answers never interleave; a closed pipe is ignored. */
export class LineWriter {
  #chain: Promise<void> = Promise.resolve();
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #encoder = new TextEncoder();
  #broken = false;

  constructor(stream: WritableStream<Uint8Array>) {
    this.#writer = stream.getWriter();
  }

  /** Queues one line (a newline is added). */
  write(line: string): Promise<void> {
    this.#chain = this.#chain.then(async () => {
      if (this.#broken) return;
      try {
        await this.#writer.write(this.#encoder.encode(line + "\n"));
      } catch {
        // The reader went away (broken pipe): nothing more can be said to it.
        this.#broken = true;
      }
    });
    return this.#chain;
  }

  /** Waits for queued lines, then releases the stream. */
  async close(): Promise<void> {
    await this.#chain;
    try {
      this.#writer.releaseLock();
    } catch {
      // Already released.
    }
  }
}
