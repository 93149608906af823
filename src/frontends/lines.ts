/** Splits a byte stream into text lines (UTF-8, `\n` or `\r\n`), the last one even without `\n`. */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  maxLineChars = 16 * 1024 * 1024,
): AsyncGenerator<string | { tooLong: number }> {
  let buffer = "";
  let skipping = 0;
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      if (skipping) {
        yield { tooLong: skipping + line.length };
        skipping = 0;
      } else {
        yield line;
      }
    }
    // A line without end that grows past the limit is dropped, and reported once it ends.
    if (buffer.length > maxLineChars) {
      skipping += buffer.length;
      buffer = "";
    }
  }
  if (skipping) yield { tooLong: skipping + buffer.length };
  else if (buffer.length) yield buffer;
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
