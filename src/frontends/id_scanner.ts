// The top-level `id` of a JSON object streamed past in pieces, without keeping or parsing it: what
// a message too large to be read is answered under (the MCP transport, readLines). It loads nothing
// else, so the MCP relay, which must not load the SDK, uses it too.

const QUOTE = 0x22, BACKSLASH = 0x5c, COLON = 0x3a, COMMA = 0x2c;
const OPEN_BRACE = 0x7b, CLOSE_BRACE = 0x7d, OPEN_BRACKET = 0x5b, CLOSE_BRACKET = 0x5d;
/** The longest id echoed, in bytes of its JSON text. */
const MAX_ID_BYTES = 256;
/**
 * Bytes of a top-level key kept: enough to tell `id` from a longer key, escaped too (`"i\u0064"`
 * is `id` to JSON.parse), with its closing quote.
 */
const KEY_KEPT = 14;

/**
 * Finds the top-level `id` of a JSON object streamed past in pieces, keeping nothing else: how an
 * oversize request's error is addressed to it.
 */
export class IdScanner {
  /**
   * The id read so far (a string or a number): as JSON.parse would see it, the last top-level `id`
   * wins; undefined if there is none, or the last is not one lspgate can echo.
   */
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
  /** The id's value ran past MAX_ID_BYTES: not kept, and no id unless a later one comes. */
  #valueTooLong = false;

  /** Reads the next bytes of the message. */
  feed(bytes: Uint8Array): void {
    for (const b of bytes) {
      if (this.#inString) {
        // Both kept only as far as they can matter: a dropped line may be one key or id of 1 GB.
        if (this.#key) {
          if (this.#key.length < KEY_KEPT) this.#key.push(b);
          else this.#keyTooLong = true;
        }
        if (this.#value) this.#keepValueByte(b);
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
        this.#keepValueByte(b);
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
        if (this.#lastKey === "id") {
          this.#value = [];
          this.#valueTooLong = false;
        }
        this.#lastKey = undefined;
      }
    }
  }

  /** An id is short; anything longer is not one lspgate could name, and is not kept. */
  #keepValueByte(b: number): void {
    if (this.#valueTooLong) return;
    if (this.#value!.length >= MAX_ID_BYTES) {
      this.#valueTooLong = true;
      this.#value = [];
    } else this.#value!.push(b);
  }

  #endString(): void {
    this.#inString = false;
    if (!this.#key) return;
    this.#key.pop(); // The closing quote.
    this.#lastKey = this.#keyTooLong ? "" : decodeKey(this.#key);
    this.#key = undefined;
  }

  #endValue(): void {
    const raw = new TextDecoder().decode(new Uint8Array(this.#value!)).trim();
    this.#value = undefined;
    this.id = undefined;
    if (this.#valueTooLong) return;
    try {
      const id = JSON.parse(raw);
      // A number is kept only where its answer carries it back as written (not 2^53 + 1, 1e0).
      if (typeof id === "string" || (Number.isSafeInteger(id) && String(id) === raw)) this.id = id;
    } catch {
      // Not an id lspgate can echo.
    }
  }
}

/** A key's text as JSON.parse reads it (escapes decoded); "" for one that is not valid JSON. */
function decodeKey(bytes: number[]): string {
  try {
    return JSON.parse(`"${new TextDecoder().decode(new Uint8Array(bytes))}"`);
  } catch {
    return "";
  }
}
