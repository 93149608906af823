import type * as proto from "vscode-languageserver-protocol";

/** A document or workspace symbol, flattened, with its parents as a dotted container. */
export interface FlatSymbol {
  name: string;
  kind: number;
  uri: string;
  range: proto.Range;
  selection: proto.Range;
  container?: string;
  depth: number;
  detail?: string;
}

/** Flattens hierarchical DocumentSymbols or flat SymbolInformation into one list, in order. */
export function flattenSymbols(
  raw: readonly (proto.DocumentSymbol | proto.SymbolInformation | proto.WorkspaceSymbol)[],
  uri: string,
): FlatSymbol[] {
  const out: FlatSymbol[] = [];
  const walk = (symbol: proto.DocumentSymbol, parents: string[]) => {
    out.push({
      name: symbol.name,
      kind: symbol.kind,
      uri,
      range: symbol.range,
      selection: symbol.selectionRange ?? symbol.range,
      container: parents.length ? parents.join(".") : undefined,
      depth: parents.length,
      detail: symbol.detail,
    });
    for (const child of symbol.children ?? []) walk(child, [...parents, symbol.name]);
  };
  for (const symbol of raw ?? []) {
    if (!symbol || typeof symbol !== "object") continue;
    if ("location" in symbol) {
      const location = symbol.location as proto.Location | { uri: string; range?: proto.Range };
      const range = location.range ?? zeroRange;
      out.push({
        name: symbol.name,
        kind: symbol.kind,
        uri: location.uri ?? uri,
        range,
        selection: range,
        container: symbol.containerName || undefined,
        depth: symbol.containerName ? 1 : 0,
      });
    } else if ("range" in symbol) {
      walk(symbol, []);
    }
  }
  return out;
}

const zeroRange: proto.Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** A symbol's dotted name: its container and its own name (`Circle.area`). */
export function qualifiedName(symbol: FlatSymbol): string {
  return symbol.container ? `${symbol.container}.${symbol.name}` : symbol.name;
}

/** What a `query` (`area`, `Circle.area`) names among a file's symbols. */
export interface QueryMatch {
  /** Symbols it names, one per qualified name, in document order; the first is answered for. */
  matches: FlatSymbol[];
  /** When it names none: the symbols nearest to what was asked (same name elsewhere, or alike). */
  nearest: FlatSymbol[];
}

/**
 * Finds the symbols `query` names. The last dotted part is the name (`area`, or `area(int)` as
 * some servers spell it); the parts before must be its container or the end of it. A container
 * that does not exist matches nothing (never another container's symbol of that name). A dotted
 * query that spells a symbol's whole path names that one alone; a bare name names every symbol
 * called so. Overloads (one qualified name, several entries) count once.
 */
export function matchQuery(symbols: readonly FlatSymbol[], query: string): QueryMatch {
  const wanted = query.split(".");
  const name = wanted[wanted.length - 1];
  const parents = wanted.slice(0, -1).join(".");
  const paths = new Map(symbols.map((s) => [s, pathOf(s)]));
  const named = symbols.filter((s) => s.name === name || paths.get(s)!.name === name);
  const inContainer = named.filter((s) => {
    const container = paths.get(s)!.container;
    return parents === "" || container === parents || container.endsWith(`.${parents}`);
  });
  const exact = parents === ""
    ? []
    : inContainer.filter((s) => paths.get(s)!.container === parents);
  const matches = distinct(exact.length ? exact : inContainer);
  if (matches.length) return { matches, nearest: [] };
  if (named.length) return { matches, nearest: distinct(named) };
  const lower = name.toLowerCase();
  const alike = symbols.filter((s) => paths.get(s)!.name.toLowerCase().includes(lower));
  return { matches, nearest: distinct(alike) };
}

/**
 * A symbol's container and name as a query spells them: `g(int)` is `g`; rust-analyzer's
 * `impl Dog` and `impl Speak for Dog<T>` containers are `Dog`; clangd's `Shape::area` is `area`
 * in `Shape`.
 */
function pathOf(symbol: FlatSymbol): { container: string; name: string } {
  const segments = (symbol.container ?? "").split(".").filter(Boolean).map(typeName);
  const scoped = symbol.name.split("::");
  segments.push(...scoped.slice(0, -1).map(typeName));
  return { container: segments.join("."), name: bareName(scoped[scoped.length - 1]) };
}

function typeName(segment: string): string {
  const impl = segment.trim().match(/^impl(?:<.*?>)?\s+(?:.*\sfor\s+)?(.+)$/);
  return (impl ? impl[1] : segment).replace(/<.*>$/, "").trim();
}

function bareName(name: string): string {
  return name.replace(/\(.*$/, "");
}

function distinct(symbols: FlatSymbol[]): FlatSymbol[] {
  const seen = new Set<string>();
  return symbols.filter((s) => {
    const key = qualifiedName(s);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
