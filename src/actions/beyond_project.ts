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
/** How long the outline that tells a local name may take. */
const OUTLINE_MS = 3_000;

/** See the file comment. */
export async function beyondProject(
  context: ActionContext,
  target: { adapter: Adapter; root: string; client: ServerClient; uri: string; name: string },
  readText: (path: string) => Promise<string | undefined>,
): Promise<CoverageAnswer> {
  const { adapter, root, client, uri, name } = target;
  let found = await otherProjectsHolding(context, { adapter, root, name }, readText);
  const asked = fromFileUrl(uri);
  if (!found.partial && asked) {
    found = await stubsHolding(context, { adapter, root, name, asked }, readText);
  }
  if (found.partial && await localToFunction(context, client, uri, name)) return { partial: false };
  return found;
}

/**
 * Whether the file's outline has `name` only inside functions (a local), never at a module's or a
 * class's level; false where it cannot tell (no hierarchical outline, the name not in it: a
 * parameter, an imported name).
 */
async function localToFunction(
  context: ActionContext,
  client: ServerClient,
  uri: string,
  name: string,
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
  if (!outline?.length || !("children" in outline[0] || "selectionRange" in outline[0])) {
    return false;
  }
  let inside = false;
  let outside = false;
  const walk = (symbols: proto.DocumentSymbol[], inFunction: boolean) => {
    for (const symbol of symbols) {
      if (symbol.name === name) {
        if (inFunction) inside = true;
        else outside = true;
      }
      walk(symbol.children ?? [], inFunction || FUNCTION_KINDS.has(symbol.kind));
    }
  };
  walk(outline as proto.DocumentSymbol[], false);
  return inside && !outside;
}
