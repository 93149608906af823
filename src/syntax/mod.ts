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
  return await syntaxPool.run({ kind: "analyze", language, text, outline }, run) as FileSyntax;
}

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
