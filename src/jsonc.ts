// JSON with comments and trailing commas (tsconfig, package.json, editors' configs), read with
// jsonc-parser loaded only when a text needs it.
//
// Rationale: jsonc-parser is CommonJS, and loading it takes Deno's CommonJS loader: ~15 ms of a
// cold start and ~5 MiB resident, for texts most of which are plain JSON (package.json always,
// many tsconfigs). JSON.parse reads those; the library, the rest.

/** The jsonc-parser module. */
export type Jsonc = typeof import("jsonc-parser");

let loading: Promise<Jsonc> | undefined;
let loaded: Jsonc | undefined;

/** jsonc-parser, loaded on first use. */
export function jsonc(): Promise<Jsonc> {
  return loading ??= import("jsonc-parser").then((module) => loaded = module);
}

/** jsonc-parser if something has loaded it already (a tree it made means it has), else undefined. */
export function loadedJsonc(): Jsonc | undefined {
  return loaded;
}

/**
 * A JSONC text's value, leniently as jsonc-parser's parse() reads it (comments and trailing commas
 * allowed, what follows a syntax error dropped); plain JSON without loading the library.
 */
export async function parseJsonc(text: string): Promise<unknown> {
  try {
    return JSON.parse(text);
  } catch {
    // Comments, trailing commas or a syntax error: the library's lenient reading.
  }
  // It recurses once a level: a repository's file thousands of levels deep would overflow the
  // stack. No config is that deep; such a text reads as nothing.
  if (depthPast(text, 1_000) !== undefined) return undefined;
  try {
    return (await jsonc()).parse(text, [], { allowTrailingComma: true });
  } catch (error) {
    // A nest the count above missed (a line break it does not know): nothing, never a crash.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/**
 * Where JSONC `text` first opens its `limit + 1`th level of `{` or `[` (strings and comments
 * skipped), or undefined when it never does.
 */
export function depthPast(text: string, limit: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (c === "/" && text[i + 1] === "/") {
      // jsonc-parser ends a line comment at \r as at \n: so must this, or a `// x\r` hides a
      // deep nest from it.
      while (i < text.length && text[i] !== "\n" && text[i] !== "\r") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === "{" || c === "[") {
      if (++depth > limit) return i;
    } else if (c === "}" || c === "]") depth--;
  }
  return undefined;
}
