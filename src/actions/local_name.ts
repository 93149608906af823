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
import { extname } from "node:path";
import type * as proto from "vscode-languageserver-protocol";
import type { ServerClient } from "../lsp/server_client.ts";
import { fromFileUrl } from "../servers/uri.ts";
import { type RawLocations, rawLocations } from "./locate.ts";
import { TextCache } from "./text_cache.ts";
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
  const scope = place.functions.at(-1);
  if (!scope) return false;
  if (place.declared && !BINDING_KINDS.has(place.declared.kind)) return false;
  const declaredAt = place.declared?.selectionRange.start ?? place.at;
  return !(NAMED_ARGUMENTS.has(extname(fromFileUrl(uri) ?? "").toLowerCase()) &&
    await inParameters(context, uri, scope, declaredAt));
}

/** The outline symbol declared at `at`, if any, and the functions around `at`, outermost first. */
function placeOf(
  symbols: proto.DocumentSymbol[],
  at: At,
): { at: At; declared?: proto.DocumentSymbol; functions: proto.DocumentSymbol[] } {
  const functions: proto.DocumentSymbol[] = [];
  for (let level = symbols;;) {
    const declared = level.find((symbol) => holds(symbol.selectionRange, at));
    if (declared) return { at, declared, functions };
    const around = level.find((symbol) => holds(symbol.range, at));
    if (!around) return { at, functions };
    if (FUNCTION_KINDS.has(around.kind)) functions.push(around);
    level = around.children ?? [];
  }
}

/**
 * Whether `at` lies in the parameter list of `fn`: between the first `(` after its name and the
 * `)` that closes it (brackets inside counted; a default value's string may hold one: quoted text
 * is passed over).
 */
async function inParameters(
  context: ActionContext,
  uri: string,
  fn: proto.DocumentSymbol,
  at: At,
): Promise<boolean> {
  const lines = await TextCache.of(context).linesOf(uri);
  // Not readable: a parameter cannot be ruled out.
  if (!lines) return true;
  let depth = 0;
  let quote = "";
  const start = fn.selectionRange.end;
  for (let line = start.line; line <= Math.min(at.line, lines.lineCount - 1); line++) {
    const text = lines.line(line);
    for (let c = line === start.line ? start.character : 0; c < text.length; c++) {
      if (line === at.line && c === at.character) return depth > 0;
      const char = text[c];
      if (quote) {
        if (char === "\\") c++;
        else if (char === quote) quote = "";
      } else if (char === '"' || char === "'") quote = char;
      else if (char === "(" || char === "[" || char === "{") depth++;
      else if (char === ")" || char === "]" || char === "}") {
        if (--depth <= 0) return false;
      } else if (depth === 0 && char === ":") return false;
    }
  }
  return false;
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
