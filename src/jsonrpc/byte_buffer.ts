/** A growable byte queue: append at the end, consume from the front, in amortized linear time. */
export class ByteBuffer {
  #bytes = new Uint8Array(0);
  #start = 0;
  #end = 0;

  /** Number of unconsumed bytes. */
  get length(): number {
    return this.#end - this.#start;
  }

  /** The unconsumed bytes; valid until the next append. */
  view(): Uint8Array {
    return this.#bytes.subarray(this.#start, this.#end);
  }

  /** Appends a copy of the chunk, growing the storage geometrically. */
  append(chunk: Uint8Array): void {
    if (this.#end + chunk.length > this.#bytes.length) {
      this.#makeRoom(chunk.length);
    }
    this.#bytes.set(chunk, this.#end);
    this.#end += chunk.length;
  }

  /** Drops the first `count` unconsumed bytes. */
  consume(count: number): void {
    this.#start = Math.min(this.#start + count, this.#end);
    if (this.#start === this.#end) this.#start = this.#end = 0;
  }

  #makeRoom(extra: number): void {
    const length = this.length;
    const needed = length + extra;
    const target = needed > this.#bytes.length
      ? new Uint8Array(Math.max(needed, this.#bytes.length * 2, 4096))
      : this.#bytes;
    target.set(this.view());
    this.#bytes = target;
    this.#start = 0;
    this.#end = length;
  }
}
