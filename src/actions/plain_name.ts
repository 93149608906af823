// A rename's new name is checked against the grammar by parsing the file twice (before and after
// the change). For a plain identifier in a language whose every such word reads as a name, that
// check cannot find anything, and the two whole-file parses were most of a C rename preview
// (issue 17, jansson: 91–513 ms against clangd's 2–19 ms; ~950 ms for the first, which loads the
// grammar). Those names skip it.
import { isReserved } from "../syntax/keywords.ts";
import type { SyntaxLanguage } from "../syntax/languages.ts";

// Languages where an ASCII word that is not reserved and not one of the words below reads as one
// name token of the kind the old name was, wherever it stands: no contextual keyword changes the
// parse there and no naming rule sets the token's kind (as Ruby's capital letter does).
const WORD_IS_A_NAME = new Set<SyntaxLanguage>(["c", "cpp", "go"]);

// Words the grammars read as something else than a name although no list reserves them:
// tree-sitter-c's primitive types (`size_t`, `uint8_t`, `bool`, … any `_t`), C++'s `final` and
// `override`, Go's `true`, `false`, `nil` and `iota`.
const NOT_A_NAME: Partial<Record<SyntaxLanguage, RegExp>> = {
  c: /_t$|^(bool|true|false|NULL)$/,
  cpp: /_t$|^(bool|true|false|NULL|nullptr|final|override|import|module)$/,
  go: /^(true|false|nil|iota)$/,
};

/** True when `newName` needs no grammar check in `language`: a plain, unreserved identifier. */
export function plainName(language: SyntaxLanguage, newName: string): boolean {
  return WORD_IS_A_NAME.has(language) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(newName) &&
    !isReserved(language, newName) && !(NOT_A_NAME[language]?.test(newName) ?? false);
}
