import type { SyntaxLanguage } from "./languages.ts";

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

/** The part of a syntax job under way, for a timeout to say how far it got. */
export type SyntaxStage = "load" | "parse" | "outline" | "errors" | "rename";
