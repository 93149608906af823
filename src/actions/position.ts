import type * as proto from "vscode-languageserver-protocol";
import { LspGateError } from "../errors.ts";
import {
  findSymbolColumn,
  fromServerPosition,
  type ServerPosition,
  toServerPosition,
} from "../lsp/positions.ts";
import type { PositionInput } from "./schema.ts";
import { ask, type QueryDocument } from "./document.ts";
import type { ActionContext } from "./types.ts";
import { flattenSymbols } from "./symbol_tree.ts";
import { positionFromTree } from "./syntax_only.ts";

/** A position the caller asked about, on both sides of the conversion. */
export interface ResolvedPosition {
  line: number;
  column: number;
  server: ServerPosition;
  /** How to name it in messages: "src/a.ts:3:17" or "`greet` (src/a.ts:3:17)". */
  label: string;
  /** The word at the position, when known. */
  word?: string;
}

const NEARBY_LINES = 3;

/** Turns line + column, line + symbol, or a symbol query into a server position. */
export async function resolvePosition(
  context: ActionContext,
  doc: QueryDocument,
  input: PositionInput,
): Promise<ResolvedPosition> {
  if (input.query !== undefined && input.line === undefined) {
    return await positionOfQuery(context, doc, input.query);
  }
  const line = input.line!;
  if (line > doc.lines.lineCount) {
    throw new LspGateError(
      "INVALID_INPUT",
      `line ${line} is past the end of ${doc.rel} (${doc.lines.lineCount} lines).`,
      { line, lines: doc.lines.lineCount },
    );
  }
  const text = doc.lines.line(line - 1);
  let column = input.column;
  if (column === undefined) {
    const symbol = input.symbol ?? input.query!;
    column = findSymbolColumn(text, symbol);
    if (column === undefined) throw symbolNotOnLine(doc, line, symbol);
  }
  const length = [...text].length;
  if (column > length + 1) {
    throw new LspGateError(
      "INVALID_INPUT",
      `column ${column} is past the end of ${doc.rel}:${line}, which has ${length} characters.`,
      { line, column, length },
    );
  }
  const server = toServerPosition(doc.lines, { line, column }, doc.encoding);
  return {
    line,
    column,
    server,
    label: `${doc.rel}:${line}:${column}`,
    word: wordAt(text, column),
  };
}

function symbolNotOnLine(doc: QueryDocument, line: number, symbol: string): LspGateError {
  const name = symbol.replace(/#\d+$/, "");
  const candidates: number[] = [];
  for (let delta = 1; delta <= NEARBY_LINES; delta++) {
    for (const candidate of [line - delta, line + delta]) {
      if (candidate >= 1 && candidate <= doc.lines.lineCount) candidates.push(candidate);
    }
  }
  // The whole word first: `greet` in a comment's "greeting" is no place to send an agent.
  const word = new RegExp(`(?<![\\p{L}\\p{N}_$])${escapeRegExp(name)}(?![\\p{L}\\p{N}_$])`, "u");
  const whole = candidates.filter((c) => word.test(doc.lines.line(c - 1)));
  const near = whole.length
    ? whole
    : candidates.filter((c) => findSymbolColumn(doc.lines.line(c - 1), name) !== undefined);
  const hint = near.length
    ? ` It is on line ${near[0]}${near.length > 1 ? ` (also ${near.slice(1).join(", ")})` : ""}.`
    : "";
  return new LspGateError(
    "SYMBOL_NOT_FOUND",
    `\`${symbol}\` is not on line ${line} of ${doc.rel}.${hint}`,
    { symbol, line, nearbyLines: near },
  );
}

async function positionOfQuery(
  context: ActionContext,
  doc: QueryDocument,
  query: string,
): Promise<ResolvedPosition> {
  if (!doc.client.supports("textDocument/documentSymbol")) {
    // A server that cannot list symbols: the syntax tree says where the name is.
    const found = await positionFromTree(doc.rel, doc.lines.text, query);
    if (found) {
      return {
        ...found,
        server: toServerPosition(doc.lines, found, doc.encoding),
        label: `\`${query}\` (${doc.rel}:${found.line}:${found.column})`,
        word: query.split(".").pop(),
      };
    }
    throw new LspGateError(
      "SYMBOL_NOT_FOUND",
      `${doc.server} cannot list symbols, so \`${query}\` cannot be looked up; give line and column.`,
      { query },
    );
  }
  const raw = await ask<proto.DocumentSymbol[] | proto.SymbolInformation[] | null>(
    context,
    doc.client,
    "textDocument/documentSymbol",
    { textDocument: { uri: doc.uri } },
  );
  const symbols = flattenSymbols(raw ?? [], doc.uri);
  const wanted = query.split(".");
  const name = wanted[wanted.length - 1];
  const parents = wanted.slice(0, -1).join(".");
  const matches = symbols.filter((s) =>
    s.name === name && (parents === "" || s.container === parents ||
      (s.container ?? "").endsWith(`.${parents}`))
  );
  const loose = matches.length
    ? matches
    : symbols.filter((s) => s.name.replace(/\(.*$/, "") === name);
  const found = loose[0];
  if (!found) {
    const names = symbols.slice(0, 30).map((s) =>
      s.container ? `${s.container}.${s.name}` : s.name
    );
    throw new LspGateError(
      "SYMBOL_NOT_FOUND",
      `No symbol \`${query}\` in ${doc.rel}.` +
        (names.length ? ` Symbols there: ${names.join(", ")}.` : " The file has no symbols."),
      { query, symbols: names },
    );
  }
  const agent = fromServerPosition(doc.lines, found.selection.start, doc.encoding);
  return {
    line: agent.line,
    column: agent.column,
    server: found.selection.start,
    label: `\`${query}\` (${doc.rel}:${agent.line}:${agent.column})`,
    word: name,
  };
}

function wordAt(text: string, column: number): string | undefined {
  const chars = [...text];
  const isWord = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_$]/u.test(c);
  let start = column - 1;
  if (!isWord(chars[start])) return undefined;
  while (start > 0 && isWord(chars[start - 1])) start--;
  let end = column - 1;
  while (isWord(chars[end + 1])) end++;
  return chars.slice(start, end + 1).join("");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
