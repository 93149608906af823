// A JavaScript file's import tsserver cannot resolve (a package not installed, a workspace package
// before `npm install`, a missing file). tsserver reports no error for it, since JavaScript is not
// type-checked, so an empty answer about a name from it read as "none", complete (a helper's find:
// p-limit's `limit.activeCount` in a monorepo before its install; the same code as .ts said
// TS2307). Asked only for an empty answer: the definition of each import's specifier, none of
// which means tsserver found no module there.
import { toServerPosition } from "../lsp/positions.ts";
import type { ServerClient } from "../lsp/server_client.ts";
import { nodeBuiltins } from "./import_resolution.ts";
import { scriptImports } from "./import_statements.ts";
import { escapeRegExp } from "../../adapters/name_coverage.ts";
import { type RawLocations, rawLocations } from "./locate.ts";
import { TextCache } from "./text_cache.ts";
import type { ActionContext } from "./types.ts";

/** Files tsserver reads as JavaScript. */
const JAVASCRIPT = /\.(?:[cm]?js|jsx)$/i;
/** The servers that are tsserver. */
const TSSERVER = new Set(["typescript"]);
/** Most imports asked about, and how long each may take. */
const MAX_ASKED = 20;
const ASK_MS = 2_000;

/** See the file comment: the first unresolved import, in words, or undefined. */
export async function unresolvedScriptImport(
  context: ActionContext,
  client: ServerClient,
  uri: string,
): Promise<string | undefined> {
  if (!TSSERVER.has(client.options.serverName) || !JAVASCRIPT.test(uri)) return undefined;
  const lines = await TextCache.of(context).linesOf(uri);
  if (!lines) return undefined;
  const text = lines.text;
  const builtins = await nodeBuiltins();
  const specifiers = [...new Set(scriptImports(text).map((i) => i.specifier))]
    // A Node built-in without @types/node is no import tsserver failed to find: nothing to say.
    .filter((s) => !s.startsWith("node:") && !builtins.has(s))
    .slice(0, MAX_ASKED);
  for (const specifier of specifiers) {
    // Where the import statement names it, not the first quote of it (a comment may hold one).
    const statement = new RegExp(
      `(?:\\bfrom\\s*|\\bimport\\s*\\(?\\s*|\\brequire\\s*\\(\\s*)(['"])${
        escapeRegExp(specifier)
      }\\1`,
    ).exec(text);
    if (!statement) continue;
    const at = statement.index + statement[0].length - specifier.length - 2;
    // Inside the quotes, where its definition is the module.
    const { line, character } = lines.positionAt(at + 1);
    const column = [...lines.line(line).slice(0, character)].length + 1;
    let found: RawLocations;
    try {
      found = await client.request<RawLocations>("textDocument/definition", {
        textDocument: { uri },
        position: toServerPosition(lines, { line: line + 1, column }, client.encoding),
      }, { timeoutMs: Math.min(ASK_MS, context.timeoutMs), signal: context.signal });
    } catch {
      continue;
    }
    if (rawLocations(found).length === 0) {
      return `tsserver cannot resolve the import of "${specifier}" (not installed, or no such ` +
        "file): what comes from it is not known";
    }
  }
  return undefined;
}
