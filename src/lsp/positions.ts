import type * as proto from "vscode-languageserver-protocol";
import { LspGateError } from "../errors.ts";
import { type ServerText, TextLines, withoutBomOf } from "./text_lines.ts";

/** A position encoding a server may negotiate: how it counts `character`. */
export type NegotiatedEncoding = "utf-8" | "utf-16" | "utf-32";

/**
 * tsserver's positions, which typescript-language-server passes on as LSP's: UTF-16, on lines that
 * U+2028 and U+2029 end as well (ECMAScript's line terminators), in a text without a leading BOM
 * (it drops one from a file it reads from disk). Taken as LSP's, a query after a separator was
 * asked about the line above, and its answer put a line below (a hover on `return other;` answered
 * about the function declared above it; its definition, "none").
 */
export const TSSERVER_UTF16 = "utf-16, as tsserver counts";

/**
 * A negotiated encoding in a text without a leading BOM: TypeScript 7's server drops one from a
 * file it reads from disk (a definition into one's first line came back three UTF-8 bytes short).
 */
export type WithoutBom = `${NegotiatedEncoding}, without the BOM`;

/** How a server counts positions: a negotiated encoding, maybe without the BOM, or tsserver's. */
export type PositionEncoding = NegotiatedEncoding | WithoutBom | typeof TSSERVER_UTF16;

/** The units each way of counting counts a line's characters in (looked up for every character). */
const UNITS: Record<PositionEncoding, NegotiatedEncoding> = {
  "utf-8": "utf-8",
  "utf-16": "utf-16",
  "utf-32": "utf-32",
  "utf-8, without the BOM": "utf-8",
  "utf-16, without the BOM": "utf-16",
  "utf-32, without the BOM": "utf-32",
  [TSSERVER_UTF16]: "utf-16",
};

function unitsOfEncoding(encoding: PositionEncoding): NegotiatedEncoding {
  return UNITS[encoding];
}

/** Whether a server counting `encoding` has no BOM in its texts (lspgate opens files without it). */
export function dropsBom(encoding: PositionEncoding): boolean {
  return encoding.includes(",");
}

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

/** How `encoding` is said to an agent: its LSP encoding, and ECMAScript's lines where it has them. */
export function describeEncoding(encoding: PositionEncoding): {
  encoding: NegotiatedEncoding;
  ecmascriptLines?: true;
} {
  const units = unitsOfEncoding(encoding);
  return encoding === TSSERVER_UTF16
    ? { encoding: units, ecmascriptLines: true }
    : { encoding: units };
}

/** `lines`' text as the server has it, where that differs (no BOM, tsserver's lines); else undefined. */
export function serverTextOf(lines: TextLines, encoding: PositionEncoding): ServerText | undefined {
  return dropsBom(encoding) ? withoutBomOf(lines, encoding === TSSERVER_UTF16) : undefined;
}

/** The lines a server's positions count (see serverTextOf). */
export function serverLinesOf(lines: TextLines, encoding: PositionEncoding): TextLines {
  return serverTextOf(lines, encoding)?.lines ?? lines;
}

/**
 * A didOpen's or didChange's params without the text's BOM, for a server that drops a file's BOM
 * when it reads the file from disk: a file opened without one counts its first line alike
 * (dropsBom(): its positions put the BOM back).
 */
export function withoutBom(method: string, params: unknown): unknown {
  const strip = (text: string) => text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (method === "textDocument/didOpen") {
    const { textDocument } = params as proto.DidOpenTextDocumentParams;
    return {
      ...(params as object),
      textDocument: { ...textDocument, text: strip(textDocument.text) },
    };
  }
  if (method === "textDocument/didChange") {
    const change = params as proto.DidChangeTextDocumentParams;
    return {
      ...change,
      contentChanges: change.contentChanges.map((c) => "range" in c ? c : { text: strip(c.text) }),
    };
  }
  return params;
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
  const server = serverTextOf(lines, encoding);
  if (!server) {
    return { line, character: toServerCharacter(lines.line(line), pos.column, encoding) };
  }
  // Where the server's text is not lspgate's: the same place in it, counted on its line.
  const at = server.lines.positionAt(
    lines.offsetAt(line, utf16OfColumn(lines.line(line), pos.column)) - server.shift,
  );
  const text = server.lines.line(at.line);
  return {
    line: at.line,
    character: toServerCharacter(text, columnOfUtf16(text, at.character), encoding),
  };
}

/** Converts a server's 0-based position to a 1-based agent position. */
export function fromServerPosition(
  lines: TextLines,
  pos: ServerPosition,
  encoding: PositionEncoding,
): AgentPosition {
  const line = Math.max(0, Math.trunc(pos.line));
  const server = serverTextOf(lines, encoding);
  if (!server) {
    return {
      line: line + 1,
      column: fromServerCharacter(lines.line(line), pos.character, encoding),
    };
  }
  // The same place in lspgate's text, on LSP's lines.
  const utf16 = locate(server.lines.line(line), pos.character, encoding).utf16;
  const at = lines.positionAt(server.lines.offsetAt(line, utf16) + server.shift);
  return { line: at.line + 1, column: columnOfUtf16(lines.line(at.line), at.character) };
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
  const own = new TextLines(text);
  const server = serverTextOf(own, encoding);
  const lines = server?.lines ?? own;
  const shift = server?.shift ?? 0;
  const offsetOf = (pos: ServerPosition) => {
    const line = Math.trunc(pos.line);
    const utf16 = locate(lines.line(line), pos.character, encoding).utf16;
    return lines.offsetAt(line, utf16) + shift;
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

function unitsOf(char: string, encoding: PositionEncoding): number {
  const units = unitsOfEncoding(encoding);
  if (units === "utf-32") return 1;
  const code = char.codePointAt(0)!;
  if (units === "utf-16") return code > 0xffff ? 2 : 1;
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
