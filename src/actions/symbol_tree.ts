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
    for (const child of inFileOrder(symbol.children ?? [])) walk(child, [...parents, symbol.name]);
  };
  for (const symbol of inFileOrder(raw ?? [])) {
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

/**
 * Siblings sorted by where they start (stable). tsserver's navigation tree lists them
 * alphabetically, so outlines came out in name order and a shared name answered for the
 * alphabetically first (issue 17).
 */
function inFileOrder<
  T extends proto.DocumentSymbol | proto.SymbolInformation | proto.WorkspaceSymbol,
>(
  symbols: readonly T[],
): T[] {
  const startOf = (symbol: T): [string, number, number] => {
    if (!symbol || typeof symbol !== "object") return ["", 0, 0];
    const range = "location" in symbol
      ? (symbol.location as { uri?: string; range?: proto.Range })
      : { uri: "", range: (symbol as proto.DocumentSymbol).range };
    const start = range.range?.start;
    return [range.uri ?? "", start?.line ?? 0, start?.character ?? 0];
  };
  const keyed = symbols.map((symbol, index) => ({ symbol, index, key: startOf(symbol) }));
  keyed.sort((a, b) =>
    (a.key[0] < b.key[0] ? -1 : a.key[0] > b.key[0] ? 1 : 0) || a.key[1] - b.key[1] ||
    a.key[2] - b.key[2] || a.index - b.index
  );
  return keyed.map((k) => k.symbol);
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
  // gopls's spelling of a method's container, `(*Greeter).Hello`, is `Greeter.Hello`.
  const wanted = query.replace(GO_RECEIVER, "$1$2").split(".");
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
  const scored = distinct([...symbols]).map((symbol, index) => ({
    symbol,
    index,
    score: nameDistance(lower, paths.get(symbol)!.name.toLowerCase()),
  })).filter((s) => s.score <= Math.max(2, Math.floor(lower.length / 3)));
  // Nearest first; equally near ones in file order.
  scored.sort((a, b) => a.score - b.score || a.index - b.index);
  return { matches, nearest: scored.map((s) => s.symbol) };
}

/**
 * How far a name is from what was asked: 0 for a case-insensitive match, 1 for a prefix or
 * containment either way, else the edit distance plus one.
 */
export function nameDistance(asked: string, name: string): number {
  if (asked === name) return 0;
  if (name.startsWith(asked) || asked.startsWith(name)) return 1;
  if (name.includes(asked) || asked.includes(name)) return 2;
  return levenshtein(asked, name) + 1;
}

function levenshtein(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let previous = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
    }
    previous = row;
  }
  return previous[y.length];
}

/**
 * A symbol's container and name as a query spells them: `g(int)` is `g`; rust-analyzer's
 * `impl Dog` and `impl Speak for Dog<T>` containers are `Dog`; clangd's `Shape::area` is `area`
 * in `Shape`.
 */
function pathOf(symbol: FlatSymbol): { container: string; name: string } {
  const segments = (symbol.container ?? "").split(".").filter(Boolean).map(typeName);
  const method = GO_METHOD.exec(symbol.name);
  if (method) {
    segments.push(method[1]);
    return { container: segments.join("."), name: bareName(method[2]) };
  }
  const scoped = symbol.name.split("::");
  segments.push(...scoped.slice(0, -1).map(typeName));
  return { container: segments.join("."), name: bareName(scoped[scoped.length - 1]) };
}

/**
 * gopls names a method by its receiver, `(*Greeter).Hello` or `(List[T]).Push`: the bare name lost
 * it all (`(.*$` cut), so no query reached a Go method (a prober's find).
 */
const GO_METHOD = /^\(\*?([^()[\]]+)(?:\[[^()]*\])?\)\.([^()]+)$/;
/** That receiver as a query's part: at the start or after a dot, before a dot. */
const GO_RECEIVER = /(^|\.)\(\*?([^()[\]]+)(?:\[[^()]*\])?\)(?=\.)/g;

/** The name a symbol goes by in code: `area` for `Shape::area`, `g(int)` or gopls's `(*T).area`. */
export function bareSymbolName(symbol: FlatSymbol): string {
  return pathOf(symbol).name;
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
