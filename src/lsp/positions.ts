import { LspGateError } from "../errors.ts";
import { ecmascriptLinesOf, TextLines } from "./text_lines.ts";

/** A position encoding a server may negotiate: how it counts `character`. */
export type NegotiatedEncoding = "utf-8" | "utf-16" | "utf-32";

/**
 * tsserver's positions, which typescript-language-server passes on as LSP's: UTF-16, on lines that
 * U+2028 and U+2029 end as well (ECMAScript's line terminators). Taken as LSP's, a query after one
 * was asked about the line above, and its answer put a line below (a hover on `return other;`
 * answered about the function declared above it; its definition, "none").
 */
export const ECMASCRIPT_UTF16 = "utf-16, ECMAScript lines";

/** How a server counts positions: a negotiated encoding, or tsserver's lines and UTF-16. */
export type PositionEncoding = NegotiatedEncoding | typeof ECMASCRIPT_UTF16;

/** The encodings lspgate offers in `general.positionEncodings`, in order of preference. */
export const POSITION_ENCODINGS: readonly NegotiatedEncoding[] = [
  "utf-8",
  "utf-16",
  "utf-32",
];

/** A 1-based line and 1-based column in code points: what an agent counts. */
export interface AgentPosition {
  line: number;
  column: number;
}

/** A 1-based range in code points, end exclusive. */
export interface AgentRange {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** A 0-based line and `character` in the server's encoding, as LSP sends it. */
export interface ServerPosition {
  line: number;
  character: number;
}

/** A range in the server's encoding, as LSP sends it. */
export interface ServerRange {
  start: ServerPosition;
  end: ServerPosition;
}

/** A text edit in the server's encoding, as LSP sends it. */
export interface ServerTextEdit {
  range: ServerRange;
  newText: string;
}

/** The encoding a server chose from its `capabilities.positionEncoding`; utf-16 when absent or unknown. */
export function negotiatedEncoding(
  serverCapabilityValue: unknown,
): NegotiatedEncoding {
  if (typeof serverCapabilityValue !== "string") return "utf-16";
  const value = serverCapabilityValue.toLowerCase();
  return (POSITION_ENCODINGS as readonly string[]).includes(value)
    ? value as NegotiatedEncoding
    : "utf-16";
}

/** The lines a server's positions count in `lines`' text: ECMAScript's for tsserver's. */
export function serverLinesOf(lines: TextLines, encoding: PositionEncoding): TextLines {
  return encoding === ECMASCRIPT_UTF16 ? ecmascriptLinesOf(lines) : lines;
}

/** The server `character` for a 1-based code point column; past the end clamps to the line end. */
export function toServerCharacter(
  lineText: string,
  column: number,
  encoding: PositionEncoding,
): number {
  if (!Number.isInteger(column) || column < 1) {
    throw new RangeError(
      `Column must be an integer of at least 1, got ${column}`,
    );
  }
  if (lineText.length >= LONG_LINE) {
    const index = lineIndex(lineText, encoding);
    return index.units[Math.min(column - 1, index.units.length - 1)];
  }
  let units = 0;
  let seen = 0;
  for (const char of lineText) {
    if (seen === column - 1) break;
    units += unitsOf(char, encoding);
    seen++;
  }
  return units;
}

/** The 1-based code point column for a server `character`; inside a character rounds to its start. */
export function fromServerCharacter(
  lineText: string,
  character: number,
  encoding: PositionEncoding,
): number {
  return locate(lineText, character, encoding).codePoints + 1;
}

/** The UTF-16 index where 1-based code point `column` of a line starts (the end past it). */
export function utf16OfColumn(lineText: string, column: number): number {
  return toServerCharacter(lineText, column, "utf-16");
}

/** The 1-based code point column of UTF-16 index `index` of a line (inside a pair: its start). */
export function columnOfUtf16(lineText: string, index: number): number {
  return fromServerCharacter(lineText, index, "utf-16");
}

/** Converts a 1-based agent position to the server's 0-based position. */
export function toServerPosition(
  lines: TextLines,
  pos: AgentPosition,
  encoding: PositionEncoding,
): ServerPosition {
  if (!Number.isInteger(pos.line) || pos.line < 1) {
    throw new RangeError(
      `Line must be an integer of at least 1, got ${pos.line}`,
    );
  }
  const line = pos.line - 1;
  const character = toServerCharacter(lines.line(line), pos.column, encoding);
  const server = serverLinesOf(lines, encoding);
  // Where the server's lines are not LSP's, the same place in the text, counted on its lines.
  return server === lines
    ? { line, character }
    : server.positionAt(lines.offsetAt(line, character));
}

/** Converts a server's 0-based position to a 1-based agent position. */
export function fromServerPosition(
  lines: TextLines,
  pos: ServerPosition,
  encoding: PositionEncoding,
): AgentPosition {
  let line = Math.max(0, Math.trunc(pos.line));
  let character = pos.character;
  const server = serverLinesOf(lines, encoding);
  if (server !== lines) {
    // In UTF-16 units on the server's line: the same place in the text, on LSP's lines.
    ({ line, character } = lines.positionAt(server.offsetAt(line, character)));
  }
  return {
    line: line + 1,
    column: fromServerCharacter(lines.line(line), character, encoding),
  };
}

/** Converts a server range to a 1-based agent range. */
export function fromServerRange(
  lines: TextLines,
  range: ServerRange,
  encoding: PositionEncoding,
): AgentRange {
  const start = fromServerPosition(lines, range.start, encoding);
  const end = fromServerPosition(lines, range.end, encoding);
  return {
    line: start.line,
    column: start.column,
    endLine: end.line,
    endColumn: end.column,
  };
}

/** Applies LSP text edits given in the server's encoding; overlapping edits throw EDIT_CONFLICT. */
export function applyEdits(
  text: string,
  edits: readonly ServerTextEdit[],
  encoding: PositionEncoding,
): string {
  const lines = serverLinesOf(new TextLines(text), encoding);
  const offsetOf = (pos: ServerPosition) => {
    const line = Math.trunc(pos.line);
    const utf16 = locate(lines.line(line), pos.character, encoding).utf16;
    return lines.offsetAt(line, utf16);
  };
  const resolved = edits.map((edit, index) => {
    const start = offsetOf(edit.range.start);
    const end = Math.max(start, offsetOf(edit.range.end));
    return { start, end, newText: edit.newText, index };
  });
  // Insertions at one point keep their array order (LSP spec) and come before
  // a replacement starting there, so that pair is not an overlap.
  const replaces = (edit: { start: number; end: number }) => edit.end > edit.start ? 1 : 0;
  resolved.sort((a, b) => a.start - b.start || replaces(a) - replaces(b) || a.index - b.index);
  for (let i = 1; i < resolved.length; i++) {
    if (resolved[i].start < resolved[i - 1].end) {
      throw new LspGateError(
        "EDIT_CONFLICT",
        "The server returned overlapping edits; nothing was applied",
        { edits: [resolved[i - 1].index, resolved[i].index] },
      );
    }
  }
  let result = text;
  for (let i = resolved.length - 1; i >= 0; i--) {
    const { start, end, newText } = resolved[i];
    result = result.slice(0, start) + newText + result.slice(end);
  }
  return result;
}

/**
 * The 1-based code point column where `symbol` (`"name"` or `"name#N"`) starts: whole words in code
 * first (not in a string literal or a comment, as far as the line shows: a helper's find, `symbol:
 * "compute"` on `print("compute", compute(1))` was asked about the string, and answered "nothing"),
 * then whole words, then any. `#N` counts in the first of those the line has. A dotted name is
 * found whole and lands on its last part.
 */
export function findSymbolColumn(
  lineText: string,
  symbol: string,
  lexing: LineLexing = PLAIN,
): number | undefined {
  // Only a trailing `#<digits>` is the occurrence, so `#include` and `#x` stay
  // names; `a#2#1` finds the literal `a#2`.
  const suffix = /^(.+)#(\d+)$/s.exec(symbol);
  const name = suffix ? suffix[1] : symbol;
  const nth = suffix ? Number(suffix[2]) : 1;
  if (name === "" || nth < 1) return undefined;
  const index = symbolOccurrences(lineText, name, lexing)[nth - 1];
  if (index === undefined) return undefined;
  // A dotted name (`self.command.get_usage`, `std::mem::swap`, `p->next`) is found whole and
  // names its last part, as a dotted `query` does (a prober's find: it answered for `self`).
  const last = /(?:\.|::|->)([\p{L}\p{M}\p{N}\p{Pc}$]+)$/u.exec(name);
  const part = last && /[\p{L}\p{N}_$]/u.test(name.slice(0, last.index))
    ? name.length - last[1].length
    : 0;
  return countCodePoints(lineText, index + part) + 1;
}

/** The UTF-16 indices of `name` on a line in the tier findSymbolColumn() counts `#N` in. */
export function symbolOccurrences(lineText: string, name: string, lexing: LineLexing): number[] {
  const all = occurrences(lineText, name);
  const words = all.filter((index) => isWholeWord(lineText, index, name, lexing.sigils ?? ""));
  const read = inCode(lineText, words, lexing);
  // A line whose quotes do not close was misread (a regular expression's quote, Rust's '"', a
  // string begun on another line: a reviewer's find): its words are taken as they come.
  const code = read.balanced ? words.filter((_, i) => read.code[i]) : [];
  return code.length > 0 ? code : words.length > 0 ? words : all;
}

/** How a line of a language is read for its strings and comments. */
export interface LineLexing {
  /** `#` starts a comment (Python, Ruby, shells, YAML, TOML). */
  hash?: boolean;
  /** `//` starts a comment (the C family, JavaScript, Go, Rust, Java…). */
  slash?: boolean;
  /** `/* … *\/` is a comment (the C family, JavaScript, Go, Rust, Java, CSS…). */
  block?: boolean;
  /** `'` quotes a string (not in Rust or OCaml, whose `'a` is a lifetime or a type variable). */
  single?: boolean;
  /**
   * Characters that, directly before a name, are part of it: JavaScript's `#size` is a private
   * field, no use of `size` (a prober's find: `symbol: "size#2"` landed on `this.#size`); Ruby's
   * `@size` and `@@size` are variables of their own.
   */
  sigils?: string;
}

const PLAIN: LineLexing = { single: true };
const HASH = /\.(py|pyi|pyw|rb|sh|bash|zsh|ya?ml|toml|r|pl|ex|exs|nix|jl|ps1|cmake)$/i;
const SLASH =
  /\.([cm]?[jt]sx?|mts|cts|c|h|cc|cpp|cxx|hh|hpp|hxx|go|rs|java|kts?|swift|cs|dart|scala|php|zig|vue|svelte|astro)$/i;
const JAVASCRIPT = /\.([cm]?[jt]sx?|mts|cts|vue|svelte|astro)$/i;

/** How lines of `path` are read for strings and comments, by its extension. */
export function lexingOf(path: string): LineLexing {
  return {
    hash: HASH.test(path) || /\.php$/i.test(path),
    slash: SLASH.test(path),
    // Zig has line comments only.
    block: (SLASH.test(path) && !/\.zig$/i.test(path)) || /\.(css|scss|sass|less)$/i.test(path),
    single: !/\.(rs|ml|mli)$/i.test(path),
    sigils: JAVASCRIPT.test(path) ? "#" : /\.rb$/i.test(path) ? "@" : "",
  };
}

/** What encloses a character: a string literal, or the `{…}` of an interpolation inside one. */
type Enclosing =
  | { kind: "string"; quote: string; interpolates: boolean }
  | { kind: "interpolation"; braces: number };

/**
 * Which of `indices` (UTF-16, ascending) of `text` are code: outside string literals and comments,
 * or inside an f-string's `{…}` or a template's `${…}` (whose own strings and comments are not
 * code: a prober's find, `f"{names['greet']}" + greet("x")` was asked about the key). One pass over
 * the line; one line is all it sees (a string or a block comment begun on an earlier line is not
 * known).
 */
function inCode(
  text: string,
  indices: number[],
  lexing: LineLexing,
): { code: boolean[]; balanced: boolean } {
  const code: boolean[] = [];
  // Innermost last; empty in code outside every string.
  const open: Enclosing[] = [];
  let comment = false;
  let block = false;
  let next = 0;
  for (let i = 0; i < text.length || next < indices.length; i++) {
    const inner = open.at(-1);
    while (next < indices.length && indices[next] <= i) {
      code.push(!comment && !block && inner?.kind !== "string" && indices[next] === i);
      next++;
    }
    if (comment) break;
    if (i >= text.length) continue;
    const char = text[i];
    if (block) {
      if (char === "*" && text[i + 1] === "/") {
        block = false;
        i++;
      }
    } else if (inner?.kind === "string") {
      if (char === "\\") i++;
      else if (char === inner.quote) open.pop();
      else if (inner.interpolates && inner.quote === "`" && char === "$" && text[i + 1] === "{") {
        open.push({ kind: "interpolation", braces: 0 });
        i++;
      } else if (inner.interpolates && inner.quote !== "`" && char === "{") {
        // `{{` is a brace in the text.
        if (text[i + 1] === "{") i++;
        else open.push({ kind: "interpolation", braces: 0 });
      }
    } else if (inner && char === "{") inner.braces++;
    else if (inner && char === "}") {
      if (inner.braces === 0) open.pop();
      else inner.braces--;
    } else if (char === '"' || char === "`" || (char === "'" && lexing.single)) {
      open.push({ kind: "string", quote: char, interpolates: char === "`" || fStringAt(text, i) });
    } else if (char === "#" && lexing.hash) comment = true;
    // An escaped slash starts no comment: it is in a regular expression (`/\/*$/`, `/\//`).
    else if (char === "/" && text[i - 1] === "\\") continue;
    else if (char === "/" && text[i + 1] === "/" && lexing.slash) comment = true;
    else if (char === "/" && text[i + 1] === "*" && lexing.block) {
      block = true;
      i++;
    }
  }
  while (code.length < indices.length) code.push(false);
  // A block comment left open goes on to the next line, as `//` does; a string left open is a
  // misreading.
  return { code, balanced: open.length === 0 };
}

/** Whether the quote at `i` opens a Python f-string: `f"`, `rf'`, `Fr"`, … after a non-word. */
function fStringAt(text: string, i: number): boolean {
  const prefix = /[rRbB]?[fF][rR]?$/.exec(text.slice(Math.max(0, i - 3), i));
  if (!prefix) return false;
  const start = i - prefix[0].length;
  return start === 0 || !/\w/.test(text[start - 1]);
}

function unitsOf(char: string, encoding: PositionEncoding): number {
  if (encoding === "utf-32") return 1;
  const code = char.codePointAt(0)!;
  if (encoding === "utf-16" || encoding === ECMASCRIPT_UTF16) return code > 0xffff ? 2 : 1;
  // A lone surrogate is written as U+FFFD, three bytes.
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return code > 0xffff ? 4 : 3;
}

/** Walks to a server `character`, stopping at the start of the character it falls in. */
function locate(
  lineText: string,
  character: number,
  encoding: PositionEncoding,
): { codePoints: number; utf16: number } {
  if (lineText.length >= LONG_LINE) {
    // The last code point boundary at or before `character`.
    const { units, utf16 } = lineIndex(lineText, encoding);
    let low = 0;
    let high = units.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (units[middle] <= character) low = middle;
      else high = middle - 1;
    }
    return { codePoints: low, utf16: utf16[low] };
  }
  let units = 0;
  let codePoints = 0;
  let utf16 = 0;
  for (const char of lineText) {
    const size = unitsOf(char, encoding);
    if (units + size > character) break;
    units += size;
    codePoints++;
    utf16 += char.length;
  }
  return { codePoints, utf16 };
}

/**
 * Lines this long are converted through an index made once (a walk from the line's start for each
 * position took a minified file's 3,000 symbols on one 210 KB line 17 s, the process frozen: a
 * helper's find); shorter ones are walked.
 */
const LONG_LINE = 2_000;

/** Per code point boundary of a line: the server's units and UTF-16 units before it. */
interface LineIndex {
  units: Int32Array;
  utf16: Int32Array;
}

/** The last few long lines indexed, per encoding (a file's symbols are converted in a row). */
const indexed: { text: string; encoding: PositionEncoding; index: LineIndex }[] = [];

function lineIndex(text: string, encoding: PositionEncoding): LineIndex {
  const found = indexed.find((entry) => entry.text === text && entry.encoding === encoding);
  if (found) return found.index;
  const units = new Int32Array(text.length + 1);
  const utf16 = new Int32Array(text.length + 1);
  let count = 0;
  for (const char of text) {
    units[count + 1] = units[count] + unitsOf(char, encoding);
    utf16[count + 1] = utf16[count] + char.length;
    count++;
  }
  const index = { units: units.subarray(0, count + 1), utf16: utf16.subarray(0, count + 1) };
  indexed.unshift({ text, encoding, index });
  indexed.length = Math.min(indexed.length, 4);
  return index;
}

function occurrences(text: string, name: string): number[] {
  const found: number[] = [];
  for (
    let index = text.indexOf(name);
    index !== -1;
    index = text.indexOf(name, index + name.length)
  ) {
    found.push(index);
  }
  return found;
}

// Marks and joiners continue identifiers too, so `cafe` is not a whole word in
// a decomposed `café`.
const WORD_CHAR = /^[\p{L}\p{M}\p{N}\p{Pc}$\u200c\u200d]$/u;

function isWholeWord(text: string, index: number, name: string, sigils: string): boolean {
  const first = String.fromCodePoint(name.codePointAt(0)!);
  const last = lastCodePoint(name);
  const before = lastCodePoint(text.slice(0, index));
  const after = text.slice(index + name.length);
  const next = after === "" ? "" : String.fromCodePoint(after.codePointAt(0)!);
  const starts = (char: string) => WORD_CHAR.test(char) || (char !== "" && sigils.includes(char));
  return (!starts(first) || !starts(before)) &&
    (!WORD_CHAR.test(last) || !WORD_CHAR.test(next));
}

function lastCodePoint(text: string): string {
  if (text === "") return "";
  const low = text.charCodeAt(text.length - 1);
  const high = text.charCodeAt(text.length - 2);
  const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 &&
    high <= 0xdbff;
  return text.slice(pair ? -2 : -1);
}

function countCodePoints(text: string, end: number): number {
  let count = 0;
  for (const _ of text.slice(0, end)) count++;
  return count;
}
