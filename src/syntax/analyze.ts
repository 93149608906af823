// The syntax work itself, run where it is called: in lspgate this is a parse Worker (pool.ts
// sends it there), so a file that takes minutes to parse holds no one else's request.
import { TextLines } from "../lsp/text_lines.ts";
import { languageName, type SyntaxLanguage } from "./languages.ts";
import { compileQuery, parse, SyntaxTimeout } from "./loader.ts";
import { outline } from "./outline.ts";
import { parseErrors } from "./parse_errors.ts";
import { OUTLINE_QUERIES } from "./queries/mod.ts";
import { renameProblem } from "./rename_check.ts";
import type { FileSyntax, OutlineSymbol, SyntaxStage } from "./types.ts";

/**
 * Parses `text` as `language`: its outline and its parse errors. `deadline` is a
 * `performance.now()` time; past it, SyntaxTimeout. `onStage` hears each part as it starts.
 * With `withOutline` false, the symbols are left out (empty). Throws SyntaxUnavailable when the
 * parsers cannot load.
 */
export async function analyzeHere(
  language: SyntaxLanguage,
  text: string,
  deadline: number,
  onStage: (stage: SyntaxStage) => void = () => {},
  withOutline = true,
): Promise<FileSyntax> {
  onStage("load");
  const query = withOutline ? await compileQuery(language, OUTLINE_QUERIES[language]) : undefined;
  onStage("parse");
  const tree = await parse(language, text, deadline);
  if (!tree) throw new SyntaxTimeout("parse");
  try {
    const lines = new TextLines(text);
    const at = agentPositions(lines);
    if (query) onStage("outline");
    const symbols = (query ? outline(tree, language, query, deadline) : []).map((s) => {
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
    onStage("errors");
    const errors = parseErrors(tree, deadline).map((e) => {
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
 * Checks a rename's new name against the grammar, at the name the rename starts from (1-based
 * line and column in code points): undefined when it fits (or the position is not on a name),
 * else the problem in a sentence. Past `deadline`, SyntaxTimeout.
 */
export async function checkNameHere(
  language: SyntaxLanguage,
  text: string,
  position: { line: number; column: number },
  newName: string,
  deadline: number,
): Promise<string | undefined> {
  const lines = new TextLines(text);
  const lineText = lines.line(position.line - 1);
  const prefix = [...lineText].slice(0, position.column - 1).join("");
  const offset = lines.offsetAt(position.line - 1, prefix.length);
  const found = await renameProblem(language, text, offset, newName, deadline);
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
