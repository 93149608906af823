// What a workspace-wide answer may miss beyond its server's project: the workspace's other projects
// (other_projects.ts) and the declaration files standing in for the code asked about
// (stub_declarations.ts). Neither applies to a name that cannot be seen outside its file: a local
// variable or one of a function's own (a reviewer's find: a `result` inside `parse()` made
// references partial, and its rename refused, because a stub held the word).
import type * as proto from "vscode-languageserver-protocol";
import type { CoverageAnswer } from "../../adapters/coverage.ts";
import type { ServerClient } from "../lsp/server_client.ts";
import type { Adapter } from "../servers/adapter.ts";
import { fromFileUrl } from "../servers/uri.ts";
import { otherProjectsHolding } from "./other_projects.ts";
import { stubsHolding } from "./stub_declarations.ts";
import type { ActionContext } from "./types.ts";

/** LSP SymbolKinds whose body is a function's scope: Method, Constructor, Function. */
const FUNCTION_KINDS = new Set([6, 9, 12]);
/**
 * LSP SymbolKinds of a name bound in a scope (Function, Variable, Constant): inside a function, no
 * other file can name it. A method or property there can still be reached (an object it returns).
 */
const BINDING_KINDS = new Set([12, 13, 14]);
/** How long the outline that tells a local name may take. */
const OUTLINE_MS = 3_000;

/** A position as the server counts. */
type At = { line: number; character: number };

/** See the file comment. */
export async function beyondProject(
  context: ActionContext,
  target: {
    adapter: Adapter;
    root: string;
    client: ServerClient;
    uri: string;
    name: string;
    at?: At;
  },
  readText: (path: string) => Promise<string | undefined>,
): Promise<CoverageAnswer> {
  const { adapter, root, client, uri, name, at } = target;
  let found = await otherProjectsHolding(context, { adapter, root, name }, readText);
  const asked = fromFileUrl(uri);
  if (!found.partial && asked) {
    found = await stubsHolding(context, { adapter, root, name, asked }, readText);
  }
  if (found.partial && at && await localAt(context, client, uri, at)) return { partial: false };
  return found;
}

/**
 * Whether the position is a local's declaration: the file's outline has a function, variable or
 * constant declared there, inside a function. False where it cannot tell (a flat outline, a
 * position at a use rather than the declaration, a member).
 */
async function localAt(
  context: ActionContext,
  client: ServerClient,
  uri: string,
  at: At,
): Promise<boolean> {
  let outline: (proto.DocumentSymbol | proto.SymbolInformation)[] | null;
  try {
    outline = await client.request("textDocument/documentSymbol", { textDocument: { uri } }, {
      timeoutMs: Math.min(OUTLINE_MS, context.timeoutMs),
      signal: context.signal,
    });
  } catch {
    return false;
  }
  if (!outline?.length || !("selectionRange" in outline[0])) return false;
  const holds = (range: proto.Range) => before(range.start, at) && before(at, range.end);
  const find = (symbols: proto.DocumentSymbol[], inFunction: boolean): boolean => {
    for (const symbol of symbols) {
      if (holds(symbol.selectionRange)) return inFunction && BINDING_KINDS.has(symbol.kind);
      if (holds(symbol.range)) {
        return find(symbol.children ?? [], inFunction || FUNCTION_KINDS.has(symbol.kind));
      }
    }
    return false;
  };
  return find(outline as proto.DocumentSymbol[], false);
}

/** Whether `a` is at or before `b`. */
function before(a: At, b: At): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}
