// Glob patterns → matchers, hand-written because JSR's @std/path/glob cannot be reached.
import { LspGateError } from "../errors.ts";
import { isWithin, MAX_PATH_LENGTH, show } from "./paths.ts";

/** Most alternatives one pattern may expand to through `{a,b}`. */
export const MAX_BRACE_EXPANSIONS = 256;

type Segment = { globstar: true } | { globstar: false; re: RegExp; literal?: string };

/** A compiled glob: matches workspace-relative paths written with `/`. */
export class GlobMatcher {
  readonly #alternatives: Segment[][];

  /** Compiles `pattern`; `root` lets an absolute pattern that lies inside it be used. */
  constructor(pattern: string, root: string) {
    const relative = relativePattern(pattern, root);
    this.#alternatives = expandBraces(relative, pattern).map((alt) =>
      compileAlternative(alt, pattern)
    );
  }

  /** Whether the file at `path` (relative, `/`-separated) matches. */
  matches(path: string): boolean {
    const parts = path.split("/");
    return this.#alternatives.some((segments) => matchSegments(segments, parts, 0, 0));
  }

  /** Whether a folder at `dir` (relative segments) could hold a match: the walk's pruning. */
  couldContain(dir: readonly string[]): boolean {
    return this.#alternatives.some((segments) => prefixMatches(segments, dir));
  }

  /** Whether every file inside folder `dir` matches (used for excludes: the walk skips it). */
  coversFolder(dir: readonly string[]): boolean {
    return this.#alternatives.some((segments) =>
      matchSegments(segments, dir, 0, 0) ||
      (segments.at(-1)?.globstar === true && matchSegments(segments.slice(0, -1), dir, 0, 0))
    );
  }

  /** Whether the pattern spells out folder `dir`'s name (so a folder skipped by default is entered). */
  names(dir: readonly string[]): boolean {
    const name = dir.at(-1);
    return this.#alternatives.some((segments) =>
      segments.some((s) => !s.globstar && s.literal === name) && prefixMatches(segments, dir)
    );
  }
}

function relativePattern(pattern: unknown, root: string): string {
  if (typeof pattern !== "string" || pattern.length === 0) {
    throw new LspGateError("INVALID_INPUT", "A glob pattern must be a non-empty string.");
  }
  if (pattern.length > MAX_PATH_LENGTH || pattern.includes("\0")) {
    throw new LspGateError(
      "INVALID_INPUT",
      `The glob ${
        show(pattern)
      } is longer than ${MAX_PATH_LENGTH} characters or contains a NUL byte.`,
    );
  }
  if (
    /^[a-zA-Z]:(?:[\\/]|$)/.test(pattern) || pattern.startsWith("\\\\") || /^file:/i.test(pattern)
  ) {
    throw outside(pattern);
  }
  if (pattern.includes("\\")) {
    throw new LspGateError(
      "INVALID_INPUT",
      `The glob ${
        show(pattern)
      } contains a backslash; separate folders with "/" (escapes are not supported).`,
    );
  }
  if (!pattern.startsWith("/")) return pattern;
  // An absolute pattern is accepted only when it spells out the root itself.
  if (pattern !== root && isWithin(pattern, root)) {
    return pattern.slice(root.endsWith("/") ? root.length : root.length + 1);
  }
  throw outside(pattern);
}

function outside(pattern: string): LspGateError {
  return new LspGateError(
    "OUTSIDE_WORKSPACE",
    `The glob ${
      show(pattern)
    } reaches outside the workspace; write it relative to the workspace root, without "..".`,
    { pattern },
  );
}

/** Expands `{a,b}` (nested too) into plain alternatives. */
export function expandBraces(pattern: string, original = pattern): string[] {
  let results = [pattern];
  for (;;) {
    const next: string[] = [];
    let changed = false;
    for (const item of results) {
      const group = findBraceGroup(item);
      if (group === undefined) {
        next.push(item);
        continue;
      }
      changed = true;
      const [start, end, options] = group;
      for (const option of options) next.push(item.slice(0, start) + option + item.slice(end + 1));
    }
    if (next.length > MAX_BRACE_EXPANSIONS) {
      throw new LspGateError(
        "INVALID_INPUT",
        `The glob ${show(original)} expands to more than ${MAX_BRACE_EXPANSIONS} patterns.`,
      );
    }
    results = next;
    if (!changed) return results;
  }
}

/** The first innermost-complete `{…}` group that has a comma: [start, end, options]. */
function findBraceGroup(text: string): [number, number, string[]] | undefined {
  for (let start = text.indexOf("{"); start !== -1; start = text.indexOf("{", start + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (c === "{") depth++;
      else if (c === "}" && --depth === 0) {
        if (commas.length === 0) break;
        const bounds = [start, ...commas, i];
        const options = bounds.slice(1).map((end, k) => text.slice(bounds[k] + 1, end));
        return [start, i, options];
      } else if (c === "," && depth === 1) commas.push(i);
    }
  }
  return undefined;
}

function compileAlternative(alternative: string, original: string): Segment[] {
  const parts = alternative.split("/").filter((part) => part !== "" && part !== ".");
  if (alternative.startsWith("/")) throw outside(original);
  if (parts.includes("..")) throw outside(original);
  // `a/**/**/b` means `a/**/b`.
  const collapsed = parts.filter((part, i) => !(part === "**" && parts[i - 1] === "**"));
  if (collapsed.length === 0) return [{ globstar: true }];
  return collapsed.map((part): Segment => {
    if (part === "**") return { globstar: true };
    const literal = /[*?[]/.test(part) ? undefined : part;
    return { globstar: false, re: new RegExp(`^${segmentSource(part)}$`, "u"), literal };
  });
}

/** One path segment's glob → RegExp source. `*` and `?` match dot files too. */
function segmentSource(part: string): string {
  let source = "";
  for (let i = 0; i < part.length; i++) {
    const c = part[i];
    if (c === "*") {
      source += "[^/]*";
      while (part[i + 1] === "*") i++;
    } else if (c === "?") source += "[^/]";
    else if (c === "[") {
      const close = part.indexOf("]", i + 2);
      if (close === -1) {
        source += "\\[";
        continue;
      }
      let body = part.slice(i + 1, close);
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      const escaped = body.replace(/[\\\]\[^]/g, "\\$&");
      source += negate ? `[^/${escaped}]` : `[${escaped}]`;
      i = close;
    } else source += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return source;
}

function matchSegments(
  segments: Segment[],
  parts: readonly string[],
  si: number,
  pi: number,
): boolean {
  for (; si < segments.length; si++, pi++) {
    const segment = segments[si];
    // A trailing `**` matches everything below, but not the folder itself.
    if (segment.globstar && si === segments.length - 1) return pi < parts.length;
    if (segment.globstar) {
      for (let skip = pi; skip <= parts.length; skip++) {
        if (matchSegments(segments, parts, si + 1, skip)) return true;
      }
      return false;
    }
    if (pi >= parts.length || !segment.re.test(parts[pi])) return false;
  }
  return pi === parts.length;
}

function prefixMatches(segments: Segment[], dir: readonly string[]): boolean {
  for (let i = 0; i < dir.length; i++) {
    const segment = segments[i];
    if (segment === undefined) return false;
    if (segment.globstar) return true;
    if (!segment.re.test(dir[i])) return false;
  }
  // A file inside `dir` has one more segment than `dir`.
  return dir.length < segments.length;
}
