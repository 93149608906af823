// The top-level `id` of a JSON object streamed past in pieces, without keeping or parsing it: what
// a message too large to be read is answered under (the MCP transport, readLines). It loads nothing
// else, so the MCP relay, which must not load the SDK, uses it too.

const QUOTE = 0x22, BACKSLASH = 0x5c, COLON = 0x3a, COMMA = 0x2c;
const OPEN_BRACE = 0x7b, CLOSE_BRACE = 0x7d, OPEN_BRACKET = 0x5b, CLOSE_BRACKET = 0x5d;
/** The longest id echoed, in bytes of its JSON text. */
const MAX_ID_BYTES = 256;
/** Bytes of a top-level key kept: enough to tell `id` (and its closing quote) from a longer key. */
const KEY_KEPT = 10;

/**
 * Finds the top-level `id` of a JSON object streamed past in pieces, keeping nothing else: how an
 * oversize request's error is addressed to it.
 */
export class IdScanner {
  /** The id, once read (a string or a number); undefined until then, or if it has none. */
  id?: string | number;
  #depth = 0;
  #inString = false;
  #escape = false;
  #expectKey = false;
  #key?: number[];
  /** The key being read ran past what is kept of it: not `id`. */
  #keyTooLong = false;
  #lastKey?: string;
  #value?: number[];
  #done = false;

  /** Reads the next bytes of the message. */
  feed(bytes: Uint8Array): void {
    for (const b of bytes) {
      if (this.#done) return;
      if (this.#inString) {
        // Both kept only as far as they can matter: a dropped line may be one key or id of 1 GB.
        if (this.#key) {
          if (this.#key.length < KEY_KEPT) this.#key.push(b);
          else this.#keyTooLong = true;
        }
        if (this.#value) {
          if (this.#value.length > MAX_ID_BYTES) {
            this.#done = true;
            return;
          }
          this.#value.push(b);
        }
        if (this.#escape) this.#escape = false;
        else if (b === BACKSLASH) this.#escape = true;
        else if (b === QUOTE) this.#endString();
        continue;
      }
      if (this.#value) {
        if (this.#depth === 1 && (b === COMMA || b === CLOSE_BRACE)) {
          this.#endValue();
          continue;
        }
        // An id is short; anything longer is not one lspgate could name.
        if (this.#value.length > MAX_ID_BYTES) this.#done = true;
        this.#value.push(b);
      }
      if (b === QUOTE) {
        this.#inString = true;
        if (this.#depth === 1 && this.#expectKey) {
          this.#key = [];
          this.#keyTooLong = false;
          this.#expectKey = false;
        }
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        this.#depth++;
        if (this.#depth === 1) this.#expectKey = b === OPEN_BRACE;
      } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        this.#depth--;
      } else if (b === COMMA && this.#depth === 1) {
        this.#expectKey = true;
      } else if (b === COLON && this.#depth === 1 && this.#lastKey !== undefined) {
        if (this.#lastKey === "id") this.#value = [];
        this.#lastKey = undefined;
      }
    }
  }

  #endString(): void {
    this.#inString = false;
    if (!this.#key) return;
    this.#key.pop(); // The closing quote.
    this.#lastKey = !this.#keyTooLong && this.#key.length <= 8
      ? new TextDecoder().decode(new Uint8Array(this.#key))
      : "";
    this.#key = undefined;
  }

  #endValue(): void {
    const raw = new TextDecoder().decode(new Uint8Array(this.#value!)).trim();
    this.#value = undefined;
    this.#done = true;
    try {
      const id = JSON.parse(raw);
      if (typeof id === "string" || typeof id === "number") this.id = id;
    } catch {
      // Not an id lspgate can echo.
    }
  }
}
