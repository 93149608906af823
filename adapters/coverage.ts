// What a server's workspace-wide answers cover, by adapter: code that either makes the server see
// every file of its project or says which it cannot see (issue 17: a rename previewed "1 edit in 1
// file" on zod without a tsconfig.json, where the name was used 6 times in 3 files).
import type { ServerClient } from "../src/lsp/server_client.ts";
import { clangdCoverage } from "./clangd_coverage.ts";
import { denoCoverage } from "./deno_coverage.ts";
import { goplsCoverage } from "./gopls_coverage.ts";
import { pyrightCoverage } from "./pyright_coverage.ts";
import { rustAnalyzerCoverage } from "./rust_coverage.ts";
import { tsserverCoverage } from "./typescript_coverage.ts";

/** What a coverage hook is given: one project and the server that serves it. */
export interface CoverageContext {
  /** The project's root: absolute, real. */
  root: string;
  /** The project's files as the workspace walk finds them (absolute, real, sorted): asked only
   * when needed, as it may walk the workspace. */
  files(): Promise<readonly string[]>;
  client: ServerClient;
  /** The URI of a document open in the server (the one asked about, or the project's opener). */
  uri: string;
  /** A file's text, or undefined where it is missing, unreadable or outside the workspace. */
  readText(path: string): Promise<string | undefined>;
  /**
   * The name asked about, where there is one (references, rename, callers, implementations): a
   * hook may then count only the files it cannot see that hold the name as a word.
   */
  name?: string;
  /** A path as the answer names it (workspace-relative). */
  relative(path: string): string;
  signal: AbortSignal;
}

/** Whether the server's workspace-wide answers miss files of the project, and why in one line. */
export interface CoverageAnswer {
  partial: boolean;
  reason?: string;
}

/** A hook run before a workspace-wide question is asked of one project's server. */
export type CoverageHook = (context: CoverageContext) => Promise<CoverageAnswer>;

/** Coverage hooks by adapter id; an adapter without one is taken to see its whole project. */
export const COVERAGE_HOOKS: Readonly<Record<string, CoverageHook>> = {
  typescript: tsserverCoverage,
  pyright: pyrightCoverage(["tool.pyright"]),
  // basedpyright reads its own table first, then pyright's.
  basedpyright: pyrightCoverage(["tool.basedpyright", "tool.pyright"]),
  deno: denoCoverage,
  clangd: clangdCoverage,
  gopls: goplsCoverage,
  "rust-analyzer": rustAnalyzerCoverage,
};

/**
 * The hooks above that only judge what their server sees (they read the project's config and
 * files, and neither ask the server anything nor hand it anything): their question may go out while
 * they run (src/actions/coverage.ts, coverageForQuestion). A hook that prepares its server is not
 * listed: it runs before the question.
 */
export const JUDGING_HOOKS: ReadonlySet<string> = new Set(["pyright", "basedpyright", "gopls"]);
