// Which files a TypeScript project's config takes in. A workspace-wide question opens one file
// per project to load it, and tsserver loads a tsconfig's project only for a file that config
// includes: rxjs's src/Rx.global.js (outside its tsconfig) gave an inferred project of one file,
// and a workspace symbol search answered "no symbols" where there were hundreds.
import { parseJsonc } from "../jsonc.ts";
import { GlobMatcher } from "../permissions/glob.ts";

/** The configs tsserver reads for a folder's project, in the order it looks for them. */
export const PROJECT_CONFIGS: readonly string[] = ["tsconfig.json", "jsconfig.json"];

/** Whether a file, given relative to the config's folder with `/`, is one the config lists. */
export type IncludeCheck = (rel: string) => boolean;

/**
 * What a tsconfig.json or jsconfig.json (its JSONC text) includes: `files`, then `include` less
 * `exclude`, a pattern without a wildcard or a dot in its last part naming a folder, as tsc reads
 * them (its wildcards take in no file or folder whose name begins with a dot: `src` leaves
 * src/.gen/ out). Undefined where the text cannot tell (not an object, or `include` left to
 * `extends`).
 */
export async function configIncludes(text: string): Promise<IncludeCheck | undefined> {
  const config: unknown = await parseJsonc(text);
  if (typeof config !== "object" || config === null || Array.isArray(config)) return undefined;
  const { files, include, exclude, extends: base } = config as Record<string, unknown>;
  const listed = strings(files);
  let patterns = strings(include);
  if (patterns === undefined) {
    // tsc inherits `include` and `files` from the config it extends, which is not read here.
    if (base !== undefined && listed === undefined) return undefined;
    patterns = listed === undefined ? ["**/*"] : [];
  }
  const included = patterns.map((pattern) => ({
    matchers: matchers([pattern], "/**/*"),
    dotted: dottedParts(pattern),
  }));
  const excluded = matchers(strings(exclude) ?? [], "/**");
  const named = new Set((listed ?? []).map(normalize));
  return (rel) => {
    if (named.has(rel)) return true;
    const dots = rel.split("/").filter((part) => part.startsWith("."));
    return included.some(({ matchers, dotted }) =>
      matchers.some((m) => m.matches(rel)) &&
      dots.every((part) => dotted.some((m) => m.matches(part)))
    ) && !excluded.some((m) => m.matches(rel));
  };
}

/**
 * The parts of an include pattern that spell out a leading dot (`.gen`, `.*`): tsc's `*`, `?` and
 * `**` match no name that begins with one (its getSubPatternFromSpec), so only these take in a file
 * or folder named so (`tsc --listFilesOnly` leaves src/.gen/z.ts out of `"include": ["src"]`).
 */
function dottedParts(pattern: string): GlobMatcher[] {
  const parts = normalize(pattern).split("/").filter((part) => part.startsWith("."));
  const compiled: GlobMatcher[] = [];
  for (const part of parts) {
    if (part === "." || part === "..") continue;
    try {
      compiled.push(new GlobMatcher(part, "/"));
    } catch {
      // Not a pattern: it takes in nothing.
    }
  }
  return compiled;
}

function strings(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((item): item is string => typeof item === "string");
}

function normalize(pattern: string): string {
  return pattern.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
}

/** Compiles patterns; a folder (no wildcard or dot in its last part) takes `folderSuffix`. */
function matchers(patterns: string[], folderSuffix: string): GlobMatcher[] {
  const compiled: GlobMatcher[] = [];
  for (const raw of patterns) {
    const pattern = normalize(raw);
    if (pattern === "" || pattern === ".") {
      compiled.push(new GlobMatcher("**", "/"));
      continue;
    }
    const last = pattern.slice(pattern.lastIndexOf("/") + 1);
    const folder = !/[*?.]/.test(last);
    try {
      compiled.push(new GlobMatcher(pattern, "/"));
      if (folder) compiled.push(new GlobMatcher(pattern + folderSuffix, "/"));
    } catch {
      // Outside the config's folder ("../shared") or not a pattern: it lists nothing here.
    }
  }
  return compiled;
}
