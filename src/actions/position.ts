import type * as proto from "vscode-languageserver-protocol";
import { LspGateError } from "../errors.ts";
import { fromServerPosition, type ServerPosition, toServerPosition } from "../lsp/positions.ts";
import {
  findSymbolColumn,
  lexingOf,
  type LineLexing,
  symbolOccurrences,
} from "../lsp/symbol_columns.ts";
import type { PositionInput } from "./schema.ts";
import { ask, type QueryDocument } from "./document.ts";
import type { ActionContext } from "./types.ts";
import {
  bareSymbolName,
  type FlatSymbol,
  flattenSymbols,
  matchQuery,
  nameDistance,
  qualifiedName,
} from "./symbol_tree.ts";
import { symbolKindName } from "../format/kinds.ts";
import { positionFromTree } from "./syntax_only.ts";
import { analyzeSyntax, type OutlineSymbol } from "../syntax/mod.ts";
import { syntaxLanguageOf } from "../syntax/languages.ts";
import { nameAsWord } from "../../adapters/name_coverage.ts";

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

/** Most symbols an ambiguous or unmatched query lists. */
const MAX_CANDIDATES = 30;

/** Options of resolvePosition(). */
export interface ResolveOptions {
  /**
   * A `query` must name one symbol: several is AMBIGUOUS_SYMBOL rather than the first with a note
   * (for writes, where a guess could change the wrong thing).
   */
  unique?: boolean;
}

/** Turns line + column, line + symbol, or a symbol query into a server position. */
export async function resolvePosition(
  context: ActionContext,
  doc: QueryDocument,
  input: PositionInput,
  options: ResolveOptions = {},
): Promise<ResolvedPosition> {
  if (input.query !== undefined && input.line === undefined) {
    return await positionOfQuery(context, doc, input.query, options);
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
    column = findSymbolColumn(text, symbol, lexingOf(doc.rel));
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
  const lexing = lexingOf(doc.rel);
  const suffix = /^(.+)#(\d+)$/s.exec(symbol);
  const name = suffix ? suffix[1] : symbol;
  if (suffix && findSymbolColumn(doc.lines.line(line - 1), name, lexing) !== undefined) {
    // The name is on the line, fewer times than `#N` asks: say how many, and where `#N` is.
    const count = countOnLine(doc.lines.line(line - 1), name, lexing);
    const elsewhere = nearbyLines(doc, line).filter((c) =>
      findSymbolColumn(doc.lines.line(c - 1), symbol, lexing) !== undefined
    );
    const hint = elsewhere.length ? ` \`${symbol}\` is on line ${elsewhere.join(", ")}.` : "";
    return new LspGateError(
      "SYMBOL_NOT_FOUND",
      `Line ${line} of ${doc.rel} has ${count === 1 ? "one" : count} \`${name}\`, not ` +
        `${suffix[2]}.${hint}`,
      { symbol, line, occurrences: count, nearbyLines: elsewhere },
    );
  }
  const candidates = nearbyLines(doc, line);
  // The whole word first: `greet` in a comment's "greeting" is no place to send an agent.
  const word = nameAsWord(name);
  const whole = candidates.filter((c) => word.test(doc.lines.line(c - 1)));
  const near =
    (whole.length
      ? whole
      : candidates.filter((c) =>
        findSymbolColumn(doc.lines.line(c - 1), name, lexing) !== undefined
      ))
      // A line named for `name#N` has an N-th occurrence (issue 17: the hint named a line with one).
      .filter((c) => findSymbolColumn(doc.lines.line(c - 1), symbol, lexing) !== undefined);
  const hint = near.length
    ? ` It is on line ${near[0]}${near.length > 1 ? ` (also ${near.slice(1).join(", ")})` : ""}.`
    : "";
  return new LspGateError(
    "SYMBOL_NOT_FOUND",
    `\`${symbol}\` is not on line ${line} of ${doc.rel}.${hint}`,
    { symbol, line, nearbyLines: near },
  );
}

/** Lines within NEARBY_LINES of `line`, nearest first. */
function nearbyLines(doc: QueryDocument, line: number): number[] {
  const candidates: number[] = [];
  for (let delta = 1; delta <= NEARBY_LINES; delta++) {
    for (const candidate of [line - delta, line + delta]) {
      if (candidate >= 1 && candidate <= doc.lines.lineCount) candidates.push(candidate);
    }
  }
  return candidates;
}

/** How many times `name` occurs on a line, counted as findSymbolColumn() counts (whole words first). */
function countOnLine(text: string, name: string, lexing: LineLexing): number {
  // Counted in one pass: asked `#N` by `#N`, a 200 KB line of 40,000 `f` took minutes.
  return symbolOccurrences(text, name, lexing).length;
}

async function positionOfQuery(
  context: ActionContext,
  doc: QueryDocument,
  query: string,
  options: ResolveOptions,
): Promise<ResolvedPosition> {
  if (!doc.client.supports("textDocument/documentSymbol")) {
    // A server that cannot list symbols: the syntax tree says where the name is.
    const found = await positionFromTree(doc.rel, doc.lines.text, query, context);
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
  if (!options.unique && query.includes(".")) {
    // The syntax tree answers a dotted query that names one symbol without a round trip. A bare
    // name asks the server, whose symbols (locals and variables the outline leaves out) are the
    // ones a rename acts on: a read and an edit of one query then see the same candidates (issue
    // 17: hover on `scope` answered the outline's one of the server's four, rename refused).
    // A write always asks the server.
    const found = await uniqueInTree(doc, query);
    if (found) {
      return {
        line: found.line,
        column: found.column,
        server: toServerPosition(doc.lines, found, doc.encoding),
        label: `\`${query}\` (${doc.rel}:${found.line}:${found.column})`,
        word: found.name,
      };
    }
  }
  const raw = await ask<proto.DocumentSymbol[] | proto.SymbolInformation[] | null>(
    context,
    doc.client,
    "textDocument/documentSymbol",
    { textDocument: { uri: doc.uri } },
  );
  const symbols = flattenSymbols(raw ?? [], doc.uri);
  const { matches, nearest } = matchQuery(symbols, query);
  const describe = (list: FlatSymbol[]) =>
    list.slice(0, MAX_CANDIDATES).map((s) => candidate(doc, s));
  if (matches.length === 0) {
    const near = describe(nearest.length ? nearest : byNearness(symbols, query));
    const listed = near.map((c) => `${c.name} (${c.file}:${c.line})`).join(", ");
    const hint = nearest.length
      ? ` Nearest: ${listed}.`
      : near.length
      ? ` Symbols there: ${listed}.`
      : " The file has no symbols.";
    throw new LspGateError("SYMBOL_NOT_FOUND", `No symbol \`${query}\` in ${doc.rel}.${hint}`, {
      query,
      candidates: near,
      // Kept for callers of the earlier shape: the dotted names alone.
      symbols: near.map((c) => c.name),
    });
  }
  if (matches.length > 1) {
    const candidates = describe(matches);
    const listed = candidates.map((c) => `${c.name} (${c.file}:${c.line}:${c.column})`).join(", ");
    if (options.unique) {
      throw new LspGateError(
        "AMBIGUOUS_SYMBOL",
        `\`${query}\` names ${matches.length} symbols in ${doc.rel}: ${listed}. Nothing was ` +
          "written; name one with its container (`Class.method`) or give line and column.",
        { query, candidates },
      );
    }
    context.notes?.push({
      text: `Note: \`${query}\` names ${matches.length} symbols in ${doc.rel}: ${listed}. ` +
        `This answer is for the first, ${candidates[0].name}; name another with its container ` +
        "or give line and column.",
      details: { ambiguous: true, candidates },
    });
  }
  const found = matches[0];
  const agent = fromServerPosition(doc.lines, found.selection.start, doc.encoding);
  return {
    line: agent.line,
    column: agent.column,
    server: found.selection.start,
    label: `\`${query}\` (${doc.rel}:${agent.line}:${agent.column})`,
    word: bareSymbolName(found),
  };
}

/**
 * The one symbol `query` names in the file's syntax outline (matched as server symbols are), or
 * undefined: no grammar, no match, several, or a name not where the outline says.
 */
export async function uniqueInTree(
  doc: Pick<QueryDocument, "rel" | "uri" | "lines">,
  query: string,
): Promise<{ line: number; column: number; name: string } | undefined> {
  const language = syntaxLanguageOf(doc.rel);
  if (!language) return undefined;
  let outline: OutlineSymbol[];
  try {
    outline = (await analyzeSyntax(language, doc.lines.text)).symbols;
  } catch {
    // No parser here (or it gave up): the server answers.
    return undefined;
  }
  const flat: FlatSymbol[] = outline.map((s) => {
    const start = { line: s.line - 1, character: s.column - 1 };
    const range = { start, end: start };
    return {
      name: s.name,
      kind: 0,
      uri: doc.uri,
      range,
      selection: range,
      container: s.container,
      depth: s.depth,
    };
  });
  const { matches } = matchQuery(flat, query);
  if (matches.length !== 1) return undefined;
  const { line, character } = matches[0].selection.start;
  const name = matches[0].name;
  // The name must be where the outline puts it (code points on that line).
  const text = [...doc.lines.line(line)].slice(character, character + [...name].length).join("");
  return text === name ? { line: line + 1, column: character + 1, name } : undefined;
}

/** A symbol as an error or a note lists it: dotted name, kind, where. */
interface Candidate {
  name: string;
  kind: string;
  file: string;
  line: number;
  column: number;
}

function candidate(doc: QueryDocument, symbol: FlatSymbol): Candidate {
  const at = fromServerPosition(doc.lines, symbol.selection.start, doc.encoding);
  return {
    name: qualifiedName(symbol),
    kind: symbolKindName(symbol.kind),
    file: doc.rel,
    line: at.line,
    column: at.column,
  };
}

/** Symbols nearest by name to the last part of `query` first; equally near ones in file order. */
function byNearness(symbols: FlatSymbol[], query: string): FlatSymbol[] {
  const asked = query.split(".").pop()!.toLowerCase();
  return symbols
    .map((symbol, index) => ({
      symbol,
      index,
      score: nameDistance(asked, symbol.name.toLowerCase()),
    }))
    .sort((a, b) => a.score - b.score || a.index - b.index)
    .map((s) => s.symbol);
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
