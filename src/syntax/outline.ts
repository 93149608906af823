import type { Node, Query, Tree } from "web-tree-sitter";
import type { SyntaxLanguage } from "./languages.ts";
import { SyntaxTimeout } from "./loader.ts";

/**
 * A definition found in a syntax tree. Offsets are UTF-16 code units of the text (what
 * web-tree-sitter counts in a JavaScript string), end exclusive.
 */
export interface SyntaxSymbol {
  name: string;
  /** A SymbolKind word: "function", "class", "method", … */
  kind: string;
  /** The whole definition. */
  start: number;
  end: number;
  /** The name. */
  nameStart: number;
  nameEnd: number;
  /** The dotted path of the parents, when nested. */
  container?: string;
  /**
   * How many enclosing definitions it has; fewer than the container's parts for a Go method or a
   * Rust impl's function, whose container (the type) is not around it.
   */
  depth: number;
}

interface Definition {
  kind: string;
  up: boolean;
  name: string;
  nameStart: number;
  nameEnd: number;
  start: number;
  end: number;
  container?: string;
  pattern: number;
}

interface Placed {
  definition: Definition;
  container: string[];
  depth: number;
  dropped: boolean;
}

const FUNCTIONS = new Set(["function", "method", "constructor"]);
const TYPES = new Set(["class", "struct", "interface", "enum"]);
const VALUES = new Set(["variable", "constant"]);
const MAX_NAME = 200;

/**
 * The outline of a parsed file, in document order. Capture conventions of the queries in
 * `queries/`: `@name` is the symbol's name; `@container` (optional) is a name added to its
 * container path (a Go method's receiver type, a Rust impl's type); captures starting with `_`
 * only serve predicates; any other capture is the definition, named by its kind word, and a
 * `.up` suffix files it under the parent of its nearest enclosing definition (a Python
 * `self.x` under the class, not the method). Variables of a function body are its locals and
 * left out; a function whose parent is a type (or that has a `@container`) is a method.
 */
export function outline(
  tree: Tree,
  language: SyntaxLanguage,
  query: Query,
  deadline = Infinity,
): SyntaxSymbol[] {
  const found = new Map<string, Definition>();
  let late = false;
  const matches = query.matches(tree.rootNode, {
    // Returning true stops the query (typed void, as for parses). A deep nesting makes the
    // matches take minutes: the caller's deadline stops them, and the outline is not given.
    progressCallback: (() => late ||= performance.now() > deadline) as () => void,
  });
  if (late) throw new SyntaxTimeout("outline");
  for (const match of matches) {
    const definition = toDefinition(match.patternIndex, match.captures, language);
    if (!definition) continue;
    // Several patterns can match one definition (`const` and any declaration); the first wins.
    const key = `${definition.start}:${definition.end}:${definition.nameStart}`;
    const before = found.get(key);
    if (!before || definition.pattern < before.pattern) found.set(key, definition);
  }
  const sorted = [...found.values()].sort((a, b) =>
    a.start - b.start || b.end - a.end || a.nameStart - b.nameStart
  );
  const symbols: SyntaxSymbol[] = [];
  const stack: Placed[] = [];
  for (const definition of sorted) {
    while (stack.length && !contains(stack[stack.length - 1].definition, definition)) stack.pop();
    const parent = stack[definition.up ? stack.length - 2 : stack.length - 1];
    const parentKind = parent?.definition.kind;
    let kind = definition.kind;
    if (kind === "function" && (TYPES.has(parentKind ?? "") || definition.container)) {
      kind = "method";
    }
    if (language === "python" && VALUES.has(kind) && /^[A-Z][A-Z0-9_]*$/.test(definition.name)) {
      kind = "constant";
    }
    const dropped = (parent?.dropped ?? false) ||
      (VALUES.has(kind) && FUNCTIONS.has(parentKind ?? ""));
    const container = [
      ...(parent ? [...parent.container, parent.definition.name] : []),
      ...(definition.container ? [definition.container] : []),
    ];
    const depth = parent ? parent.depth + 1 : 0;
    stack.push({ definition: { ...definition, kind }, container, depth, dropped });
    if (dropped) continue;
    const symbol: SyntaxSymbol = {
      name: definition.name,
      kind,
      start: definition.start,
      end: definition.end,
      nameStart: definition.nameStart,
      nameEnd: definition.nameEnd,
      depth,
    };
    if (container.length) symbol.container = container.join(".");
    symbols.push(symbol);
  }
  return dedupeValues(symbols);
}

function toDefinition(
  pattern: number,
  captures: { name: string; node: Node }[],
  language: SyntaxLanguage,
): Definition | undefined {
  let definition: Node | undefined;
  let kind = "";
  let name: Node | undefined;
  let container: Node | undefined;
  for (const capture of captures) {
    if (capture.name === "name") name = capture.node;
    else if (capture.name === "container") container = capture.node;
    else if (!capture.name.startsWith("_")) {
      definition = capture.node;
      kind = capture.name;
    }
  }
  if (!definition || !name) return undefined;
  let text = name.text.replace(/\s+/g, " ").slice(0, MAX_NAME);
  // A quoted YAML key and a Ruby :symbol are named without their quotes or colon.
  let skip = 0;
  if (language === "yaml" && /^(["']).*\1$/.test(text)) [text, skip] = [text.slice(1, -1), 1];
  if (language === "ruby" && text.startsWith(":")) [text, skip] = [text.slice(1), 1];
  if (text === "") return undefined;
  const up = kind.endsWith(".up");
  return {
    kind: up ? kind.slice(0, -3) : kind,
    up,
    name: text,
    nameStart: name.startIndex + skip,
    nameEnd: name.endIndex,
    start: definition.startIndex,
    end: definition.endIndex,
    container: container?.text.replace(/\s+/g, " "),
    pattern,
  };
}

function contains(outer: Definition, inner: Definition): boolean {
  const same = outer.start === inner.start && outer.end === inner.end;
  return !same && outer.start <= inner.start && inner.end <= outer.end;
}

/** A variable assigned twice in one scope (`x = 1` … `x = 2`) is listed once, where it starts. */
function dedupeValues(symbols: SyntaxSymbol[]): SyntaxSymbol[] {
  const seen = new Set<string>();
  return symbols.filter((s) => {
    if (!VALUES.has(s.kind) && s.kind !== "field") return true;
    const key = `${s.container ?? ""}\u0000${s.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
