// Whether the name asked about is a function's own: no other file can name it, so files a server
// left out cannot hold uses of it, and a workspace-wide answer about it is complete whatever they
// are (helpers' finds: a `result` inside `parse()` made references partial, and its rename refused,
// because a stub or another package held the word; a Go or C local, because a build left a file
// out). Told from the file's outline, at the name's declaration: a function, variable or constant
// declared inside a function. Asked at a use, the declaration is the server's definition; a name
// the outline does not list (gopls and clangd list no locals) counts when declared in a function's
// body. A parameter of a language whose callers name parameters (Python's keyword arguments) is
// not a local: `fetch("x", timeout=5)` in another file uses `timeout` (a helper's find: its rename
// was applied as complete, and the caller raised TypeError).
import { extname } from "../posix_path.ts";
import type * as proto from "vscode-languageserver-protocol";
import type { ServerClient } from "../lsp/server_client.ts";
import { fromFileUrl } from "../servers/uri.ts";
import { type RawLocations, rawLocations } from "./locate.ts";
import { TextCache } from "./text_cache.ts";
import type { TextLines } from "../lsp/text_lines.ts";
import { serverLinesOf } from "../lsp/positions.ts";
import type { ActionContext } from "./types.ts";

/** LSP SymbolKinds whose body is a function's scope: Method, Constructor, Function. */
const FUNCTION_KINDS = new Set([6, 9, 12]);
/**
 * LSP SymbolKinds of a name bound in a scope (Function, Variable, Constant): inside a function, no
 * other file can name it. A method or property there can still be reached (an object it returns).
 */
const BINDING_KINDS = new Set([12, 13, 14]);
/** Languages whose calls may name a parameter (keyword or named arguments, labels). */
const NAMED_ARGUMENTS = new Set(
  [".py", ".pyi", ".pyw", ".rb", ".php", ".cs", ".kt", ".kts", ".swift", ".dart", ".scala", ".ml"],
);
/** How long the outline and the definition that tell a local may take, each. */
const ASK_MS = 3_000;

/** A position as the server counts. */
type At = { line: number; character: number };

/** See the file comment. False where it cannot tell. */
export async function isLocalAt(
  context: ActionContext,
  client: ServerClient,
  uri: string,
  at: At,
): Promise<boolean> {
  const outline = await ask<(proto.DocumentSymbol | proto.SymbolInformation)[]>(
    context,
    client,
    "textDocument/documentSymbol",
    { textDocument: { uri } },
  );
  // A flat outline (SymbolInformation) has no scopes to tell a local by.
  if (!outline?.length || !("selectionRange" in outline[0])) return false;
  const symbols = outline as proto.DocumentSymbol[];
  let place = placeOf(symbols, at);
  if (!place.declared) {
    // At a use, or at a name the outline does not list: where the server says it is declared.
    const found = rawLocations(
      await ask<RawLocations>(context, client, "textDocument/definition", {
        textDocument: { uri },
        position: at,
      }),
    );
    if (found.length !== 1 || found[0].uri !== uri) return false;
    place = placeOf(symbols, found[0].range.start);
  }
  // Directly in a function's scope: a class's attribute there is reachable through the class.
  const scope = place.parent;
  if (!scope || !FUNCTION_KINDS.has(scope.kind)) return false;
  if (place.declared && !BINDING_KINDS.has(place.declared.kind)) return false;
  const named = NAMED_ARGUMENTS.has(extname(fromFileUrl(uri) ?? "").toLowerCase());
  // Where calls may name parameters, a name the outline does not list may be a lambda's (a
  // reviewer's find: `fetch = lambda path, timeout=3: …` returned, called with timeout=10).
  if (named && !place.declared) return false;
  const text = await TextCache.of(context).linesOf(uri);
  // Not readable: what it is cannot be told.
  if (!text) return false;
  // Walked in the server's units on its lines, as its outline gives them.
  const lines = serverLinesOf(text, client.encoding);
  const declaredAt = place.declared?.selectionRange.start ?? place.at;
  const where = placeInSignature(lines, scope, declaredAt);
  // A parameter callers name (keyword arguments; a destructured object's keys in any language),
  // and a name in the signature outside the parameters (a Go result type's struct field).
  if (where === "signature" || where === "destructured") return false;
  if (where === "parameter" && named) return false;
  // A block-scope `extern` names a global of another file (C).
  return !/\bextern\b/.test(lines.line(declaredAt.line).slice(0, declaredAt.character));
}

/** The outline symbol declared at `at`, if any, and the innermost symbol around it. */
function placeOf(
  symbols: proto.DocumentSymbol[],
  at: At,
): { at: At; declared?: proto.DocumentSymbol; parent?: proto.DocumentSymbol } {
  let parent: proto.DocumentSymbol | undefined;
  for (let level = symbols;;) {
    const declared = level.find((symbol) => holds(symbol.selectionRange, at));
    if (declared) return { at, declared, parent };
    const around = level.find((symbol) => holds(symbol.range, at));
    if (!around) return { at, parent };
    parent = around;
    level = around.children ?? [];
  }
}

/**
 * Where `at` lies in `fn`'s declaration: in its parameter list (between the first `(` after its
 * name and the `)` closing it), in a destructured object there (`{ verbose }`: callers name the
 * key), elsewhere in its signature (a result type's `struct{ Name string }`: before the body's
 * `{` or `:` at bracket depth 0), or in its body. Quoted text is passed over.
 */
function placeInSignature(
  lines: TextLines,
  fn: proto.DocumentSymbol,
  at: At,
): "parameter" | "destructured" | "signature" | "body" {
  const open: string[] = [];
  let quote = "";
  let parameters: "before" | "in" | "after" = "before";
  const start = fn.selectionRange.end;
  for (let line = start.line; line <= Math.min(at.line, lines.lineCount - 1); line++) {
    const text = lines.line(line);
    for (let c = line === start.line ? start.character : 0; c < text.length; c++) {
      if (line === at.line && c === at.character) {
        if (parameters === "in") return open.includes("{") ? "destructured" : "parameter";
        return "signature";
      }
      const char = text[c];
      if (quote) {
        if (char === "\\") c++;
        else if (char === quote) quote = "";
      } else if (char === '"' || char === "'" || char === "`") quote = char;
      else if (char === "(" || char === "[" || char === "{") {
        // The body's start: its `{` after the parameters, at depth 0.
        if (char === "{" && open.length === 0 && parameters === "after") return "body";
        if (char === "(" && parameters === "before") parameters = "in";
        open.push(char);
      } else if (char === ")" || char === "]" || char === "}") {
        open.pop();
        if (open.length === 0 && parameters === "in") parameters = "after";
      } else if (char === ":" && open.length === 0 && parameters === "after") return "body";
    }
  }
  return "body";
}

function holds(range: proto.Range, at: At): boolean {
  return before(range.start, at) && before(at, range.end);
}

/** Whether `a` is at or before `b`. */
function before(a: At, b: At): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

/** A bounded request; undefined when it fails or times out. */
async function ask<T>(
  context: ActionContext,
  client: ServerClient,
  method: string,
  params: unknown,
): Promise<T | undefined> {
  try {
    return await client.request<T>(method, params, {
      timeoutMs: Math.min(ASK_MS, context.timeoutMs),
      signal: context.signal,
    });
  } catch {
    return undefined;
  }
}
