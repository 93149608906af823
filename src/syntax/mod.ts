// Answers with no language server: WebAssembly tree-sitter parsers give a file's outline, its
// parse errors, and where a named symbol is. They run in parse Workers (pool.ts), never on the
// main thread, each job within its deadline.
import type { SyntaxLanguage } from "./languages.ts";
import { syntaxPool, type SyntaxRunOptions } from "./pool.ts";
import type { FileSyntax, OutlineSymbol } from "./types.ts";

export {
  languageName,
  SYNTAX_LANGUAGES,
  type SyntaxLanguage,
  syntaxLanguageOf,
} from "./languages.ts";
export { loadTimes, SyntaxUnavailable } from "./loader.ts";
export { syntaxPool, type SyntaxRunOptions } from "./pool.ts";
export type { FileSyntax, OutlineSymbol, SyntaxProblem } from "./types.ts";

/**
 * Parses `text` as `language` in a parse Worker: its outline (unless `outline: false`, for
 * diagnostics) and its parse errors. Throws SyntaxUnavailable, or TIMEOUT / CANCELLED
 * (LspGateError) past `options`' deadline or signal.
 */
export async function analyzeSyntax(
  language: SyntaxLanguage,
  text: string,
  options: SyntaxRunOptions & { outline?: boolean } = {},
): Promise<FileSyntax> {
  const { outline, ...run } = options;
  const key = text.length <= MAX_CACHED_CHARS ? `${language}\u0000${outline}\u0000${text}` : "";
  const cached = recent.get(key);
  if (cached) {
    // Most recently used last.
    recent.delete(key);
    recent.set(key, cached);
    return cached;
  }
  const job = { kind: "analyze" as const, language, text, outline };
  const syntax = await syntaxPool.run(job, run) as FileSyntax;
  if (key) {
    recent.set(key, syntax);
    if (recent.size > MAX_CACHED) recent.delete(recent.keys().next().value!);
  }
  return syntax;
}

/**
 * The last answers, by language and text: a `query` position asks the outline of the same file
 * on every request, which a Worker would otherwise parse again each time.
 */
const recent = new Map<string, FileSyntax>();
const MAX_CACHED = 16;
const MAX_CACHED_CHARS = 256 * 1024;

/**
 * Checks a rename's new name against the grammar, at the name the rename starts from (1-based
 * line and column in code points): undefined when it fits (or the position is not on a name),
 * else the problem in a sentence. Throws as analyzeSyntax() does.
 */
export async function checkNewName(
  language: SyntaxLanguage,
  text: string,
  position: { line: number; column: number },
  newName: string,
  options: SyntaxRunOptions = {},
): Promise<string | undefined> {
  const job = { kind: "rename" as const, language, text, position, newName };
  return await syntaxPool.run(job, options) as string | undefined;
}

/**
 * The symbol a query names (`greet`, or dotted `Greeter.hello`), as `query` positions resolve:
 * the name, under parents that end the same way; failing that, the first of that name.
 */
export function findSymbol(symbols: OutlineSymbol[], query: string): OutlineSymbol | undefined {
  const wanted = query.split(".");
  const name = wanted[wanted.length - 1];
  const parents = wanted.slice(0, -1).join(".");
  return symbols.find((s) =>
    s.name === name &&
    (parents === "" || s.container === parents || (s.container ?? "").endsWith(`.${parents}`))
  );
}
