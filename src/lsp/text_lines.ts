/** A 0-based line and UTF-16 code unit offset within a JavaScript string. */
export interface Utf16Position {
  line: number;
  character: number;
}

/**
 * A document's text split into lines the way LSP counts them (`\n`, `\r\n` and `\r` end a line),
 * or, given `ecmascript`, the way ECMAScript does (U+2028 and U+2029 end one too: tsserver's lines).
 */
export class TextLines {
  readonly #starts: number[];
  readonly #ends: number[];

  /** Splits the whole text of a document into lines. */
  constructor(readonly text: string, ecmascript = false) {
    const starts = [0];
    const ends: number[] = [];
    if (!text.includes("\r") && !ecmascript) {
      // The common case, searched natively: a code unit loop took ~0.1 ms a query on a 60 KB file.
      for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
        ends.push(i);
        starts.push(i + 1);
      }
    } else {
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (
          code !== 0x0a && code !== 0x0d && (!ecmascript || (code !== 0x2028 && code !== 0x2029))
        ) continue;
        ends.push(i);
        if (code === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++;
        starts.push(i + 1);
      }
    }
    ends.push(text.length);
    this.#starts = starts;
    this.#ends = ends;
  }

  /** The number of lines; a text ending in a line break has an empty last line. */
  get lineCount(): number {
    return this.#starts.length;
  }

  /** The text of the 0-based line without its terminator; "" when out of range. */
  line(index0: number): string {
    if (!this.#has(index0)) return "";
    return this.text.slice(this.#starts[index0], this.#ends[index0]);
  }

  /** The string offset of a 0-based line and UTF-16 character, clamped to the line and the document. */
  offsetAt(line0: number, utf16Char: number): number {
    if (line0 < 0) return 0;
    if (!this.#has(line0)) return this.text.length;
    const start = this.#starts[line0];
    const end = this.#ends[line0];
    return Math.min(start + Math.max(0, utf16Char), end);
  }

  /** The 0-based line and UTF-16 character of a string offset, clamped to the document. */
  positionAt(offset: number): Utf16Position {
    const clamped = Math.min(Math.max(0, offset), this.text.length);
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.#starts[mid] <= clamped) low = mid;
      else high = mid - 1;
    }
    // An offset inside a line terminator (between \r and \n) belongs to the line's end.
    const character = Math.min(clamped, this.#ends[low]) - this.#starts[low];
    return { line: low, character };
  }

  #has(index0: number): boolean {
    return Number.isInteger(index0) && index0 >= 0 &&
      index0 < this.#starts.length;
  }
}

const RECENT_MAX = 8;
const recent = new Map<string, TextLines>();

/**
 * The lines of `text`, split once while it is among the last few asked for: an agent asks several
 * questions of one file, and each query's document is the text its server already has.
 */
export function linesOf(text: string): TextLines {
  let lines = recent.get(text);
  if (lines) recent.delete(text);
  else lines = new TextLines(text);
  recent.set(text, lines);
  if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value!);
  return lines;
}

/**
 * A text as a server has it where that differs from lspgate's: its lines, and how many UTF-16 units
 * of lspgate's text come before the server's (a BOM the server does not have).
 */
export interface ServerText {
  lines: TextLines;
  shift: number;
}

const serverTexts = [new WeakMap<TextLines, ServerText | null>(), new WeakMap()];

/**
 * `lines`' text as a server that drops a file's BOM has it (it does when it reads a file from disk,
 * and lspgate opens one in it without the BOM too); with `ecmascript`, on ECMAScript's lines
 * (U+2028 and U+2029 end one too: tsserver's). Undefined where that is the text and lines lspgate
 * has.
 */
export function withoutBomOf(lines: TextLines, ecmascript: boolean): ServerText | undefined {
  const cache = serverTexts[ecmascript ? 1 : 0];
  let found = cache.get(lines);
  if (found === undefined) {
    const shift = lines.text.startsWith("\uFEFF") ? 1 : 0;
    found = shift || (ecmascript && /[\u2028\u2029]/.test(lines.text))
      ? { lines: new TextLines(lines.text.slice(shift), ecmascript), shift }
      : null;
    cache.set(lines, found);
  }
  return found ?? undefined;
}
