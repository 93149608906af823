/** Where `needle` is in a text, as an agent counts it. */
export interface TextPosition {
  /** 1-based line. */
  line: number;
  /** 1-based column, counted in Unicode code points. */
  column: number;
}

/** A range as lspgate's details give it: 1-based, code points, end exclusive. */
export interface TextSpan extends TextPosition {
  endLine: number;
  endColumn: number;
}

/**
 * The 1-based line and code-point column of the `nth` (1-based) occurrence of `needle` in
 * `text`. Throws when there are fewer occurrences, so a fixture edit fails loudly.
 */
export function locate(text: string, needle: string, nth = 1): TextPosition {
  if (needle === "") throw new Error("locate() needs a non-empty needle");
  let index = -1;
  for (let seen = 0; seen < nth; seen++) {
    index = text.indexOf(needle, index + 1);
    if (index === -1) {
      throw new Error(`locate(): occurrence ${nth} of ${JSON.stringify(needle)} not found`);
    }
  }
  const before = text.slice(0, index);
  const lineStart = before.lastIndexOf("\n") + 1;
  return {
    line: before.split("\n").length,
    column: [...text.slice(lineStart, index)].length + 1,
  };
}

/** The span `needle` covers at its `nth` occurrence (it must not contain a line break). */
export function span(text: string, needle: string, nth = 1): TextSpan {
  if (needle.includes("\n")) throw new Error("span() needles stay on one line");
  const start = locate(text, needle, nth);
  return { ...start, endLine: start.line, endColumn: start.column + [...needle].length };
}

/**
 * The span of `name` found inside the `nth` occurrence of `context`, e.g.
 * `spanWithin(text, "function greet(", "greet")`: a name made unique by what surrounds it.
 */
export function spanWithin(text: string, context: string, name: string, nth = 1): TextSpan {
  const outer = locate(text, context, nth);
  const offset = context.indexOf(name);
  if (offset === -1) {
    throw new Error(`${JSON.stringify(name)} is not in ${JSON.stringify(context)}`);
  }
  const column = outer.column + [...context.slice(0, offset)].length;
  return { line: outer.line, column, endLine: outer.line, endColumn: column + [...name].length };
}

/** The text of 1-based line `line`. */
export function lineText(text: string, line: number): string {
  return text.split("\n")[line - 1];
}
