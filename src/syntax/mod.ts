// Answers with no language server: WebAssembly tree-sitter parsers, run in-process (no process,
// no permission), give a file's outline, its parse errors, and where a named symbol is.
import { TextLines } from "../lsp/text_lines.ts";
import { languageName, type SyntaxLanguage } from "./languages.ts";
import { compileQuery, parse, SyntaxUnavailable } from "./loader.ts";
import { outline } from "./outline.ts";
import { parseErrors } from "./parse_errors.ts";
import { OUTLINE_QUERIES } from "./queries/mod.ts";
import { renameProblem } from "./rename_check.ts";

export {
  languageName,
  SYNTAX_LANGUAGES,
  type SyntaxLanguage,
  syntaxLanguageOf,
} from "./languages.ts";
export { loadTimes, SyntaxUnavailable } from "./loader.ts";

/** A symbol of the syntax outline, positioned as agents count (1-based, code points). */
export interface OutlineSymbol {
  name: string;
  kind: string;
  /** Where the name starts. */
  line: number;
  column: number;
  /** The last line of the whole definition. */
  endLine: number;
  container?: string;
  depth: number;
}

/** A parse error, positioned as agents count (1-based, code points, end exclusive). */
export interface SyntaxProblem {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
}

/** What the parser says about one file. */
export interface FileSyntax {
  language: SyntaxLanguage;
  symbols: OutlineSymbol[];
  errors: SyntaxProblem[];
}

/** Parses `text` as `language`: its outline and its parse errors. Throws SyntaxUnavailable. */
export async function analyzeSyntax(language: SyntaxLanguage, text: string): Promise<FileSyntax> {
  const query = await compileQuery(language, OUTLINE_QUERIES[language]);
  const tree = await parse(language, text);
  if (!tree) throw new SyntaxUnavailable("the file took too long to parse");
  try {
    const lines = new TextLines(text);
    const at = agentPositions(lines);
    const symbols = outline(tree, language, query).map((s) => {
      const name = at(s.nameStart);
      const symbol: OutlineSymbol = {
        name: s.name,
        kind: s.kind,
        line: name.line,
        column: name.column,
        endLine: lines.positionAt(Math.max(s.start, s.end - 1)).line + 1,
        depth: s.depth,
      };
      if (s.container) symbol.container = s.container;
      return symbol;
    });
    const errors = parseErrors(tree).map((e) => {
      const start = at(e.start);
      const end = at(e.end);
      return {
        line: start.line,
        column: start.column,
        endLine: end.line,
        endColumn: end.column,
        message: e.message,
      };
    });
    return { language, symbols, errors };
  } finally {
    tree.delete();
  }
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

/**
 * Checks a rename's new name against the grammar, at the name the rename starts from (1-based
 * line and column in code points): undefined when it fits (or the position is not on a name),
 * else the problem in a sentence. Throws SyntaxUnavailable.
 */
export async function checkNewName(
  language: SyntaxLanguage,
  text: string,
  position: { line: number; column: number },
  newName: string,
): Promise<string | undefined> {
  const lines = new TextLines(text);
  const lineText = lines.line(position.line - 1);
  const prefix = [...lineText].slice(0, position.column - 1).join("");
  const offset = lines.offsetAt(position.line - 1, prefix.length);
  const found = await renameProblem(language, text, offset, newName);
  if (!found) return undefined;
  return `\`${newName}\` ${found.problem} in ${languageName(language)}: line ${position.line} ` +
    `would read \`${found.line}\`.`;
}

/**
 * Converts UTF-16 offsets to 1-based lines and code-point columns. Offsets mostly come in
 * document order, so counting goes on from the last one on the same line: a minified file's one
 * long line is walked once, not once per symbol.
 */
function agentPositions(lines: TextLines): (offset: number) => { line: number; column: number } {
  const text = lines.text;
  let line = -1, unit = 0, points = 0;
  return (offset) => {
    const at = lines.positionAt(offset);
    if (at.line !== line || at.character < unit) [line, unit, points] = [at.line, 0, 0];
    const start = lines.offsetAt(line, 0);
    for (let i = start + unit; i < start + at.character; i++) {
      // The second half of a surrogate pair is the same code point as the first.
      const isLow = (text.charCodeAt(i) & 0xfc00) === 0xdc00;
      if (!(isLow && i > start && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800)) points++;
    }
    unit = at.character;
    return { line: line + 1, column: points + 1 };
  };
}
