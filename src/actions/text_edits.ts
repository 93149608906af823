import * as z from "../zod.ts";
import { LspGateError } from "../errors.ts";
import { applyEdits, toServerPosition } from "../lsp/positions.ts";
import { TextLines } from "../lsp/text_lines.ts";
import { columnField, lineField } from "./schema.ts";

/** One edit an agent proposes: a 1-based code-point range and its new text (as details.changes). */
export interface AgentTextEdit {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  newText: string;
}

/** Most edits one request may propose. */
export const MAX_PROPOSED_EDITS = 1000;

/** The schema of `edits`: ranges as `details.changes[].edits` gives them. */
export const agentEditsField = z.array(z.strictObject({
  line: lineField,
  column: columnField,
  endLine: lineField,
  endColumn: columnField,
  newText: z.string(),
})).check(z.minLength(1), z.maxLength(MAX_PROPOSED_EDITS));

/**
 * `text` with `edits` applied, each range counted in 1-based code points of `text` as it is (not
 * of the text after earlier edits). A range past the end of its line or of the file, one that ends
 * before it starts, or two that overlap are INVALID_INPUT.
 */
export function applyAgentEdits(text: string, edits: readonly AgentTextEdit[]): string {
  const lines = new TextLines(text);
  const server = edits.map((edit, index) => {
    const label = `edits[${index}]`;
    const start = checked(lines, edit.line, edit.column, `${label} start`);
    const end = checked(lines, edit.endLine, edit.endColumn, `${label} end`);
    if (edit.endLine < edit.line || (edit.endLine === edit.line && edit.endColumn < edit.column)) {
      throw new LspGateError(
        "INVALID_INPUT",
        `${label} ends (${edit.endLine}:${edit.endColumn}) before it starts ` +
          `(${edit.line}:${edit.column}).`,
      );
    }
    return { range: { start, end }, newText: edit.newText };
  });
  try {
    return applyEdits(text, server, "utf-32");
  } catch (error) {
    if (!(error instanceof LspGateError) || error.code !== "EDIT_CONFLICT") throw error;
    const [a, b] = (error.data?.edits ?? []) as number[];
    throw new LspGateError(
      "INVALID_INPUT",
      `edits[${a}] and edits[${b}] overlap; give ranges of the file as it is that do not overlap.`,
    );
  }
}

function checked(lines: TextLines, line: number, column: number, label: string) {
  if (line > lines.lineCount) {
    throw new LspGateError(
      "INVALID_INPUT",
      `${label}: line ${line} is past the end of the file (${lines.lineCount} lines).`,
    );
  }
  const length = [...lines.line(line - 1)].length;
  if (column > length + 1) {
    throw new LspGateError(
      "INVALID_INPUT",
      `${label}: column ${column} is past the end of line ${line} (${length} characters; ` +
        `its end is column ${length + 1}).`,
    );
  }
  return toServerPosition(lines, { line, column }, "utf-32");
}
