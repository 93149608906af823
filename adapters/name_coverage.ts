// What coverage hooks share: of the files a server cannot see, those that can hold a use of the
// name asked about (a file without the word cannot, short of a macro pasting it together).
import type { CoverageContext } from "./coverage.ts";

/**
 * Most files read to look for the name; past them, each is counted as holding it. 2,000 (~40 ms):
 * at 200, a project-local environment (`.pixi/`, 1,250 files) or a cache of 250 scripts made
 * every name partial (a reviewer's find).
 */
const MAX_READ = 2_000;
/** How many files a reason names. */
const NAMED = 3;

/**
 * The files of `files` that hold `context.name` as a whole word (all of them when no name is
 * asked about, or past MAX_READ, or where a file cannot be read).
 */
export async function holdingName(
  context: CoverageContext,
  files: readonly string[],
): Promise<string[]> {
  const { name } = context;
  if (!name) return [...files];
  const word = nameAsWord(name);
  const holding: string[] = [];
  for (const [i, file] of files.entries()) {
    const text = i < MAX_READ ? await context.readText(file) : undefined;
    if (text === undefined || word.test(text)) holding.push(file);
  }
  return holding;
}

/** `text` matched literally inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A pattern matching `name` as a whole word of code (letters, digits, `_` and `$` around it not). */
export function nameAsWord(name: string, flags = ""): RegExp {
  const escaped = escapeRegExp(name);
  return new RegExp(`(?<![\\p{L}\\p{N}_$])${escaped}(?![\\p{L}\\p{N}_$])`, `u${flags}`);
}

/** Up to NAMED files, workspace-relative, then how many more: "a.c, b.c and 2 more". */
export function namedFiles(context: CoverageContext, files: readonly string[]): string {
  const names = files.slice(0, NAMED).map((file) => context.relative(file));
  const more = files.length > NAMED ? ` and ${files.length - NAMED} more` : "";
  return `${names.join(", ")}${more}`;
}
