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
