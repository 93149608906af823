import type * as proto from "vscode-languageserver-protocol";
import * as z from "../zod.ts";
import { toLspGateError } from "../errors.ts";
import { boundList, boundText, plural } from "../format/bound.ts";
import { symbolKindName } from "../format/kinds.ts";
import {
  columnOfUtf16,
  fromServerPosition,
  fromServerRange,
  type PositionEncoding,
  utf16OfColumn,
} from "../lsp/positions.ts";
import type { TextLines } from "../lsp/text_lines.ts";
import { fromFileUrl } from "../servers/uri.ts";
import { ask, withDocument } from "./document.ts";
import { syntaxOutline } from "./syntax_only.ts";
import { loadProblem, readinessNote, waitForProject } from "./readiness.ts";
import { fileField, timeoutField } from "./schema.ts";
import { type FlatSymbol, flattenSymbols } from "./symbol_tree.ts";
import { type ActionContext, type ActionDef, defineAction } from "./types.ts";
import { TextCache } from "./text_cache.ts";
import { workspaceServers } from "./workspace_servers.ts";
import { lacking, offers, orRefused } from "./refused_methods.ts";
import { compareText } from "../compare.ts";

/** A symbol in `details.symbols`. */
export interface SymbolView {
  name: string;
  kind: string;
  file: string;
  line: number;
  column: number;
  endLine: number;
  container?: string;
  detail?: string;
}

// A workspace search without a query (OpenCode's workspaceSymbol has none) lists the workspace's
// symbols, bounded like every list.
const schema = z.strictObject({
  file: fileField,
  query: z.optional(z.string()),
  timeout: timeoutField,
});

/** symbols: a file's outline, or with `file: "*"` and `query` a search across the workspace. */
export const symbolsAction: ActionDef = defineAction({
  name: "symbols",
  summary: 'A file\'s outline; with file "*" and query, a workspace symbol search.',
  schema,
  access: "read",
  run: (input, context) =>
    input.file === "*" ? workspaceSymbols(context, input.query ?? "") : outline(context, input),
});

function outline(context: ActionContext, input: { file: string; query?: string }) {
  return withDocument(context, input.file, (doc) =>
    orRefused("symbols", doc, async () => {
      const method = "textDocument/documentSymbol";
      if (!offers(doc.client, method)) return lacking("symbols", doc, method);
      const raw = await ask<proto.DocumentSymbol[] | proto.SymbolInformation[] | null>(
        context,
        doc.client,
        method,
        { textDocument: { uri: doc.uri } },
      );
      let flat = flattenSymbols(raw ?? [], doc.uri);
      if (input.query) {
        const q = input.query.toLowerCase();
        flat = flat.filter((s) => s.name.toLowerCase().includes(q));
      }
      const views = flat.map((s) => view(s, doc.rel, doc.lines, doc.encoding));
      if (views.length === 0) {
        return {
          text: input.query
            ? `No symbols matching \`${input.query}\` in ${doc.rel}.`
            : `${doc.rel} has no symbols.`,
          details: { symbols: [], total: 0, truncated: false },
        };
      }
      const bounded = boundList(views);
      const lines = bounded.items.map((s, i) =>
        `${"  ".repeat(flat[i].depth)}${s.kind === s.name ? s.name : `${s.kind} ${s.name}`}${
          s.detail ? ` ${s.detail}` : ""
        } ` +
        `(${s.line}:${s.column})`
      );
      const more = bounded.truncated ? `\n… ${bounded.total - bounded.items.length} more.` : "";
      return {
        text: boundText(
          `Symbols in ${doc.rel} (${plural(bounded.total, "symbol")}):\n` +
            lines.join("\n") + more,
        ).text,
        details: { symbols: bounded.items, total: bounded.total, truncated: bounded.truncated },
      };
    })).catch((error) => syntaxOutline(context, input, error));
}

async function workspaceSymbols(context: ActionContext, query: string) {
  const method = "workspace/symbol";
  const found = await workspaceServers(context, { method, symbolQuery: query });
  const { servers } = found;
  if (servers.length === 0 && found.failure) throw found.failure;
  const missing = found.missing.join(", ");
  // Servers left unstarted (no file of theirs can hold a match) count as asked: nothing matched.
  if (servers.length === 0 && found.unsupported.length === 0 && found.skipped.length === 0) {
    return {
      text: missing
        ? `No installed language server handles the files in this workspace (not installed: ` +
          `${missing}), so nothing was searched.`
        : "No language server handles any file in this workspace, so there is nothing to search.",
      details: {
        symbols: [],
        total: 0,
        truncated: false,
        partial: found.partial,
        ...(found.reasons.length ? { partialReason: found.reasons.join("; ") } : {}),
      },
    };
  }
  const notes = [
    ...found.unsupported.map((id) => `${id} does not offer workspace symbol search.`),
    ...(missing ? [`Not searched (server not installed): ${missing}.`] : []),
    ...found.notes,
  ];
  // Files named by the answers, read once per request and kept across requests while unchanged.
  const texts = TextCache.of(context);
  const read = new Map<string, Promise<TextLines | undefined>>();
  const linesOf = (uri: string) => {
    let lines = read.get(uri);
    if (!lines) read.set(uri, lines = texts.linesOf(uri));
    return lines;
  };
  const answers = await Promise.allSettled(servers.map(async (server) => {
    try {
      const ready = await waitForProject(context, server.client, "workspace");
      const raw = await ask<(proto.SymbolInformation | proto.WorkspaceSymbol)[] | null>(
        context,
        server.client,
        method,
        { query },
      );
      const views = await Promise.all(
        flattenSymbols(raw ?? [], "").map(async (symbol) => {
          const path = fromFileUrl(symbol.uri);
          const file = path ? context.workspace.relative(path) : symbol.uri;
          return view(symbol, file, await linesOf(symbol.uri), server.client.encoding);
        }),
      );
      return { views, ready };
    } finally {
      server.release();
    }
  }));
  const views: SymbolView[] = [];
  let ready = true;
  let partial = found.partial;
  const reasons = [...found.reasons];
  let failure: unknown;
  // Two servers whose projects share a file (a package inside another's folder) name its symbols
  // twice: each is listed once.
  const seen = new Set<string>();
  answers.forEach((answer, i) => {
    if (answer.status === "fulfilled") {
      for (const symbol of answer.value.views) {
        const key =
          `${symbol.file}\0${symbol.line}\0${symbol.column}\0${symbol.kind}\0${symbol.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        views.push(symbol);
      }
      // A server that could not load its project, or resolve an import: its reason, not "still
      // loading" (asking again would not help).
      const problem = loadProblem(servers[i].client, "workspace");
      if (problem !== undefined) {
        partial = true;
        notes.push(`${servers[i].id} could not load all of the project: ${problem}`);
        reasons.push(`${servers[i].id} could not load all of the project: ${problem}`);
      } else {
        ready &&= answer.value.ready;
      }
      return;
    }
    // One server's error leaves the others' answers standing, said to be partial.
    failure ??= answer.reason;
    partial = true;
    const { id, root } = servers[i];
    notes.push(`${id} (${root}) did not answer: ${toLspGateError(answer.reason).message}`);
    reasons.push(`${id} (${root}) did not answer`);
  });
  // No server answered (a cancel among them): the error, never "no symbols".
  if (failure !== undefined && !answers.some((a) => a.status === "fulfilled")) throw failure;
  // Exact names first, then prefix matches, then the rest, as a person would scan them.
  const q = query.toLowerCase();
  const rank = (s: SymbolView) =>
    s.name === query
      ? 0
      : s.name.toLowerCase() === q
      ? 1
      : s.name.toLowerCase().startsWith(q)
      ? 2
      : 3;
  views.sort((a, b) => rank(a) - rank(b) || compareText(a.file, b.file) || a.line - b.line);
  const bounded = boundList(views);
  const lines = bounded.items.map((s) =>
    `${s.kind} ${s.container ? `${s.container}.` : ""}${s.name}  ${s.file}:${s.line}:${s.column}`
  );
  const matching = query === ""
    ? "(no query: every symbol the servers list)"
    : `matching \`${query}\``;
  const text = bounded.total === 0
    ? query === ""
      ? "The servers listed no workspace symbols for an empty query (some list only matches of a " +
        "name); give query, a name or its start."
      : `No workspace symbols match \`${query}\`.`
    : `${plural(bounded.total, "workspace symbol")} ${matching}:\n${lines.join("\n")}` +
      (bounded.truncated ? `\n… ${bounded.total - bounded.items.length} more not shown.` : "");
  return {
    text: boundText([text, ...notes].join("\n")).text + readinessNote(ready),
    details: {
      symbols: bounded.items,
      total: bounded.total,
      truncated: bounded.truncated,
      partial: partial || !ready,
      // Not started: none of their files holds the query's characters in order (complete still).
      ...(found.skipped.length ? { notStarted: found.skipped } : {}),
      ...(partial || !ready
        ? {
          partialReason: [...reasons, ...(ready ? [] : ["a server was still loading"])].join("; "),
        }
        : {}),
    },
  };
}

function view(
  symbol: FlatSymbol,
  file: string,
  lines: TextLines | undefined,
  encoding: PositionEncoding,
): SymbolView {
  const range = lines ? nameRange(lines, symbol, encoding) : {
    line: symbol.selection.start.line + 1,
    column: symbol.selection.start.character + 1,
    endLine: symbol.range.end.line + 1,
    endColumn: symbol.range.end.character + 1,
  };
  const endLine = lines
    ? fromServerPosition(lines, symbol.range.end, encoding).line
    : symbol.range.end.line + 1;
  const result: SymbolView = {
    name: symbol.name,
    kind: symbolKindName(symbol.kind),
    file,
    line: range.line,
    column: range.column,
    endLine,
  };
  if (symbol.container) result.container = symbol.container;
  if (symbol.detail) result.detail = symbol.detail;
  return result;
}

/**
 * Where the symbol's name is. Flat SymbolInformation (workspace search) gives the whole
 * declaration's range, starting at `export function`: the name is looked up inside it, so the
 * position fed back into the next request lands on the name.
 */
function nameRange(lines: TextLines, symbol: FlatSymbol, encoding: PositionEncoding) {
  const range = fromServerRange(lines, symbol.selection, encoding);
  const sameAsRange = symbol.selection.start.line === symbol.range.start.line &&
    symbol.selection.start.character === symbol.range.start.character &&
    symbol.selection.end.line === symbol.range.end.line;
  if (!sameAsRange || !symbol.name) return range;
  for (let line = range.line; line <= Math.min(range.endLine, range.line + 20); line++) {
    // In UTF-16, converted once found: spreading a minified file's 210 KB line into characters
    // for each of its 3,000 symbols took 5.5 s (a helper's find).
    const text = lines.line(line - 1);
    const from = line === range.line ? utf16OfColumn(text, range.column) : 0;
    const found = text.indexOf(symbol.name, from);
    if (found === -1) continue;
    const column = columnOfUtf16(text, found);
    return {
      line,
      column,
      endLine: line,
      endColumn: column + [...symbol.name].length,
    };
  }
  return range;
}
