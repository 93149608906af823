import type { SyntaxLanguage } from "./languages.ts";
import type { FileSyntax, SyntaxStage } from "./types.ts";

/** A job for a parse Worker. */
export type SyntaxJob =
  | {
    kind: "analyze";
    language: SyntaxLanguage;
    text: string;
    /** false: the parse errors alone (diagnostics need no outline, the slow part on deep files). */
    outline?: boolean;
  }
  | {
    kind: "rename";
    language: SyntaxLanguage;
    text: string;
    position: { line: number; column: number };
    newName: string;
  };

/** What a job answers: the file's syntax, or a rename's problem (undefined: none). */
export type SyntaxAnswer = FileSyntax | string | undefined;

/** Main thread → parse Worker: a job and the time it has, in ms from now. */
export interface ToSyntaxWorker {
  id: number;
  job: SyntaxJob;
  budgetMs: number;
}

/** Parse Worker → main thread: the stage a job reached, then its answer or why it has none. */
export type FromSyntaxWorker =
  | { id: number; reached: SyntaxStage }
  | { id: number; answer: SyntaxAnswer; wasmBytes: number }
  | {
    id: number;
    failure: "timeout" | "unavailable";
    message: string;
    stage?: SyntaxStage;
    wasmBytes: number;
  };
