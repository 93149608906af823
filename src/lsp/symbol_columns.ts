// Where a name is on a line: the column a `symbol` position stands for (whole words in code first),
// and how a file's language writes strings and comments, as far as one line shows them.

/**
 * The 1-based code point column where `symbol` (`"name"` or `"name#N"`) starts: whole words in code
 * first (not in a string literal or a comment, as far as the line shows: a helper's find, `symbol:
 * "compute"` on `print("compute", compute(1))` was asked about the string, and answered "nothing"),
 * then whole words, then any. `#N` counts in the first of those the line has. A dotted name is
 * found whole and lands on its last part.
 */
export function findSymbolColumn(
  lineText: string,
  symbol: string,
  lexing: LineLexing = PLAIN,
): number | undefined {
  // Only a trailing `#<digits>` is the occurrence, so `#include` and `#x` stay
  // names; `a#2#1` finds the literal `a#2`.
  const suffix = /^(.+)#(\d+)$/s.exec(symbol);
  const name = suffix ? suffix[1] : symbol;
  const nth = suffix ? Number(suffix[2]) : 1;
  if (name === "" || nth < 1) return undefined;
  const index = symbolOccurrences(lineText, name, lexing)[nth - 1];
  if (index === undefined) return undefined;
  // A dotted name (`self.command.get_usage`, `std::mem::swap`, `p->next`) is found whole and
  // names its last part, as a dotted `query` does (a prober's find: it answered for `self`).
  const last = /(?:\.|::|->)([\p{L}\p{M}\p{N}\p{Pc}$]+)$/u.exec(name);
  const part = last && /[\p{L}\p{N}_$]/u.test(name.slice(0, last.index))
    ? name.length - last[1].length
    : 0;
  return countCodePoints(lineText, index + part) + 1;
}

/** The UTF-16 indices of `name` on a line in the tier findSymbolColumn() counts `#N` in. */
export function symbolOccurrences(lineText: string, name: string, lexing: LineLexing): number[] {
  const all = occurrences(lineText, name);
  const words = all.filter((index) => isWholeWord(lineText, index, name, lexing.sigils ?? ""));
  const read = inCode(lineText, words, lexing);
  // A line whose quotes do not close was misread (a regular expression's quote, Rust's '"', a
  // string begun on another line: a reviewer's find): its words are taken as they come.
  const code = read.balanced ? words.filter((_, i) => read.code[i]) : [];
  return code.length > 0 ? code : words.length > 0 ? words : all;
}

/** How a line of a language is read for its strings and comments. */
export interface LineLexing {
  /** `#` starts a comment (Python, Ruby, shells, YAML, TOML). */
  hash?: boolean;
  /** `//` starts a comment (the C family, JavaScript, Go, Rust, Java…). */
  slash?: boolean;
  /** `/* … *\/` is a comment (the C family, JavaScript, Go, Rust, Java, CSS…). */
  block?: boolean;
  /** `'` quotes a string (not in Rust or OCaml, whose `'a` is a lifetime or a type variable). */
  single?: boolean;
  /**
   * Characters that, directly before a name, are part of it: JavaScript's `#size` is a private
   * field, no use of `size` (a prober's find: `symbol: "size#2"` landed on `this.#size`); Ruby's
   * `@size` and `@@size` are variables of their own.
   */
  sigils?: string;
}

const PLAIN: LineLexing = { single: true };
const HASH = /\.(py|pyi|pyw|rb|sh|bash|zsh|ya?ml|toml|r|pl|ex|exs|nix|jl|ps1|cmake)$/i;
const SLASH =
  /\.([cm]?[jt]sx?|mts|cts|c|h|cc|cpp|cxx|hh|hpp|hxx|go|rs|java|kts?|swift|cs|dart|scala|php|zig|vue|svelte|astro)$/i;
const JAVASCRIPT = /\.([cm]?[jt]sx?|mts|cts|vue|svelte|astro)$/i;

/** How lines of `path` are read for strings and comments, by its extension. */
export function lexingOf(path: string): LineLexing {
  return {
    hash: HASH.test(path) || /\.php$/i.test(path),
    slash: SLASH.test(path),
    // Zig has line comments only.
    block: (SLASH.test(path) && !/\.zig$/i.test(path)) || /\.(css|scss|sass|less)$/i.test(path),
    single: !/\.(rs|ml|mli)$/i.test(path),
    sigils: JAVASCRIPT.test(path) ? "#" : /\.rb$/i.test(path) ? "@" : "",
  };
}

/** What encloses a character: a string literal, or the `{…}` of an interpolation inside one. */
type Enclosing =
  | { kind: "string"; quote: string; interpolates: boolean }
  | { kind: "interpolation"; braces: number };

/**
 * Which of `indices` (UTF-16, ascending) of `text` are code: outside string literals and comments,
 * or inside an f-string's `{…}` or a template's `${…}` (whose own strings and comments are not
 * code: a prober's find, `f"{names['greet']}" + greet("x")` was asked about the key). One pass over
 * the line; one line is all it sees (a string or a block comment begun on an earlier line is not
 * known).
 */
function inCode(
  text: string,
  indices: number[],
  lexing: LineLexing,
): { code: boolean[]; balanced: boolean } {
  const code: boolean[] = [];
  // Innermost last; empty in code outside every string.
  const open: Enclosing[] = [];
  let comment = false;
  let block = false;
  let next = 0;
  for (let i = 0; i < text.length || next < indices.length; i++) {
    const inner = open.at(-1);
    while (next < indices.length && indices[next] <= i) {
      code.push(!comment && !block && inner?.kind !== "string" && indices[next] === i);
      next++;
    }
    if (comment) break;
    if (i >= text.length) continue;
    const char = text[i];
    if (block) {
      if (char === "*" && text[i + 1] === "/") {
        block = false;
        i++;
      }
    } else if (inner?.kind === "string") {
      if (char === "\\") i++;
      else if (char === inner.quote) open.pop();
      else if (inner.interpolates && inner.quote === "`" && char === "$" && text[i + 1] === "{") {
        open.push({ kind: "interpolation", braces: 0 });
        i++;
      } else if (inner.interpolates && inner.quote !== "`" && char === "{") {
        // `{{` is a brace in the text.
        if (text[i + 1] === "{") i++;
        else open.push({ kind: "interpolation", braces: 0 });
      }
    } else if (inner && char === "{") inner.braces++;
    else if (inner && char === "}") {
      if (inner.braces === 0) open.pop();
      else inner.braces--;
    } else if (char === '"' || char === "`" || (char === "'" && lexing.single)) {
      open.push({ kind: "string", quote: char, interpolates: char === "`" || fStringAt(text, i) });
    } else if (char === "#" && lexing.hash) comment = true;
    // An escaped slash starts no comment: it is in a regular expression (`/\/*$/`, `/\//`).
    else if (char === "/" && text[i - 1] === "\\") continue;
    else if (char === "/" && text[i + 1] === "/" && lexing.slash) comment = true;
    else if (char === "/" && text[i + 1] === "*" && lexing.block) {
      block = true;
      i++;
    }
  }
  while (code.length < indices.length) code.push(false);
  // A block comment left open goes on to the next line, as `//` does; a string left open is a
  // misreading.
  return { code, balanced: open.length === 0 };
}

/** Whether the quote at `i` opens a Python f-string: `f"`, `rf'`, `Fr"`, … after a non-word. */
function fStringAt(text: string, i: number): boolean {
  const prefix = /[rRbB]?[fF][rR]?$/.exec(text.slice(Math.max(0, i - 3), i));
  if (!prefix) return false;
  const start = i - prefix[0].length;
  return start === 0 || !/\w/.test(text[start - 1]);
}

function occurrences(text: string, name: string): number[] {
  const found: number[] = [];
  for (
    let index = text.indexOf(name);
    index !== -1;
    index = text.indexOf(name, index + name.length)
  ) {
    found.push(index);
  }
  return found;
}

// Marks and joiners continue identifiers too, so `cafe` is not a whole word in
// a decomposed `café`.
const WORD_CHAR = /^[\p{L}\p{M}\p{N}\p{Pc}$\u200c\u200d]$/u;

function isWholeWord(text: string, index: number, name: string, sigils: string): boolean {
  const first = String.fromCodePoint(name.codePointAt(0)!);
  const last = lastCodePoint(name);
  const before = lastCodePoint(text.slice(0, index));
  const after = text.slice(index + name.length);
  const next = after === "" ? "" : String.fromCodePoint(after.codePointAt(0)!);
  const starts = (char: string) => WORD_CHAR.test(char) || (char !== "" && sigils.includes(char));
  return (!starts(first) || !starts(before)) &&
    (!WORD_CHAR.test(last) || !WORD_CHAR.test(next));
}

function lastCodePoint(text: string): string {
  if (text === "") return "";
  const low = text.charCodeAt(text.length - 1);
  const high = text.charCodeAt(text.length - 2);
  const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 &&
    high <= 0xdbff;
  return text.slice(pair ? -2 : -1);
}

function countCodePoints(text: string, end: number): number {
  let count = 0;
  for (const _ of text.slice(0, end)) count++;
  return count;
}
