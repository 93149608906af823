// What one row of the conformance suite says about one language server on one fixture: where to
// ask and what must come back, all as text matches in the fixture (never hand-counted columns).
import type { LspGateConfig } from "../../src/config.ts";
import type { TempWorkspace } from "../helpers/workspace.ts";

/**
 * A place in a fixture file: the `nth` occurrence of `context` in `file`, narrowed to `name`
 * inside it (default: all of `context`). Expected locations compare the whole span.
 */
export interface Spot {
  file: string;
  context: string;
  name?: string;
  nth?: number;
}

/** `spot("src/a.c", "int add(", "add")`: a Spot, short. */
export function spot(file: string, context: string, name?: string, nth?: number): Spot {
  return { file, context, name, nth };
}

/** A symbol expected in an outline or a workspace search, at its name. */
export interface SymbolSpot {
  name: string;
  /** As `details.symbols[].kind` says it: "function", "method", "class", … */
  kind: string;
  /** Dotted path of the parents, as `details.symbols[].container` says it. */
  container?: string;
  at: Spot;
}

/** The checks every row answers, in the order they run (the first one from a cold start). */
export const CHECKS = [
  "coldStart",
  "unicode",
  "references",
  "hover",
  "symbols",
  "workspaceSymbols",
  "rename",
  "diagnostics",
] as const;

/** One check's name. */
export type CheckName = typeof CHECKS[number];

/** One language server on one fixture. */
export interface Row {
  /** The test's name: the server and, where it matters, the language ("clangd (C)"). */
  name: string;
  /** Folder under tests/fixtures/, copied to a temporary folder for the row. */
  fixture: string;
  /** The adapter id that must answer for the fixture's files. */
  server: string;
  /** Finds or installs the server before the row runs; throws, naming what is missing, if it cannot. */
  ensure?: () => Promise<unknown>;
  /**
   * The position encoding the server must agree to (lspgate offers UTF-32, UTF-8, UTF-16 in that
   * order, and clangd's own `offsetEncoding`): checked with the cold start.
   */
  encoding?: "utf-8" | "utf-16" | "utf-32";
  /** `servers` entries of the user's config for the row's session (e.g. basedpyright preferred). */
  servers?: LspGateConfig["servers"];
  /** Prepares the copied workspace before the session opens (e.g. writes compile_commands.json). */
  setup?: (ws: TempWorkspace) => Promise<void>;
  /**
   * The first request of a fresh session: a definition asked by line + `symbol` at `from`, in
   * another file than `to`. It must land on the definition (not a header, not an import), since
   * an agent's first question gets no second chance.
   */
  coldStart?: { from: Spot; to: Spot[] };
  /**
   * A definition asked at a column counted in code points, on a line with non-ASCII text (CJK,
   * an emoji) before `from`; where the server gives the hover a range, it must be `from`'s span.
   */
  unicode?: { from: Spot; to: Spot[] };
  /** References (declaration included) of the symbol at `at`: exactly `expect`, across files. */
  references?: { at: Spot; expect: Spot[] };
  /** Hover at `at`: the text matches every pattern. */
  hover?: { at: Spot; matches: RegExp[] };
  /** The outline of `file` holds each of `expect`, once, at its name. */
  symbols?: { file: string; expect: SymbolSpot[] };
  /** A workspace search for `query` finds each of `expect` at its name; exact names rank first. */
  workspaceSymbols?: { query: string; expect: SymbolSpot[] };
  /** A rename preview at `at` to `newName` edits exactly `expect` (default: the references). */
  rename?: { at: Spot; newName: string; expect?: Spot[] };
  /**
   * `file` is clean; with `replace[0]` replaced by `replace[1]` on disk it has exactly one error,
   * spanning `error` (found in the edited text); with the original text back it is clean again.
   */
  diagnostics?: {
    file: string;
    replace: [string, string];
    error: Spot;
    message?: RegExp;
    code?: string | number;
  };
  /** Why a check does not apply to this server (a check is either given or explained here). */
  skip?: Partial<Record<CheckName, string>>;
}
