import * as z from "../zod.ts";

/** A path relative to the root, absolute inside it, or a file:// URI. */
export const fileField = z.string().check(z.minLength(1, "file must not be empty"));

/** 1-based line number. */
export const lineField = z.number().check(
  z.int(),
  z.gte(1, "line is 1-based: the first line is 1"),
);

/** 1-based column, counted in Unicode code points. */
export const columnField = z.number().check(
  z.int(),
  z.gte(1, "column is 1-based, counted in code points: the first character is column 1"),
);

/** A preview's `details.edit_hash`: an apply carrying it writes exactly that edit or nothing. */
export const editHashField = z.optional(
  z.string().check(
    z.regex(/^[0-9a-f]{64}$/, "edit_hash is a preview's details.edit_hash (64 hex digits)"),
  ),
);

/** Per-call timeout in milliseconds. */
export const timeoutField = z.optional(z.number().check(z.int(), z.gte(1), z.lte(600_000)));

/** Where in a file: line + column, line + symbol (`name` or `name#N`), or a symbol `query`. */
export const positionFields = {
  file: fileField,
  line: z.optional(lineField),
  column: z.optional(columnField),
  // A name, not a text: 40,000 characters made a regular expression too large to compile (INTERNAL).
  symbol: z.optional(z.string().check(z.minLength(1), z.maxLength(1_000))),
  query: z.optional(z.string().check(z.minLength(1))),
  timeout: timeoutField,
};

/** A position input, after validation. */
export interface PositionInput {
  file: string;
  line?: number;
  column?: number;
  symbol?: string;
  query?: string;
  timeout?: number;
}

/** Message for a request that names no position. */
export const NEED_POSITION =
  "a position is needed: line + column, line + symbol (a name on that line, `name#2` for " +
  "its second occurrence), or query (a symbol name such as `greet` or `Class.method`)";

/** True when the input names a position one of the three ways. */
export function hasPosition(value: PositionInput): boolean {
  return value.query !== undefined ||
    (value.line !== undefined && (value.column !== undefined || value.symbol !== undefined));
}

/** The schema of an action that takes a file and a position. */
export const positionSchema = z.strictObject(positionFields).check(
  z.refine(hasPosition, NEED_POSITION),
);
