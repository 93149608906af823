import type { SyntaxLanguage } from "./languages.ts";

// Reserved words a name may not be. Most grammars here accept a keyword where a name stands
// (tree-sitter's JavaScript reads `let class = 1` as a declaration), so the rename check asks
// this list too. Contextual keywords (TypeScript's `type`, Python's `match`) are names.

const JS =
  "break case catch class const continue debugger default delete do else enum export extends " +
  "false finally for function if import in instanceof new null return super switch this throw " +
  "true try typeof var void while with yield let static implements interface package private " +
  "protected public await";

const C =
  "auto break case char const continue default do double else enum extern float for goto if " +
  "inline int long register restrict return short signed sizeof static struct switch typedef " +
  "union unsigned void volatile while";

const WORDS: Partial<Record<SyntaxLanguage, string>> = {
  typescript: JS,
  tsx: JS,
  javascript: JS,
  python: "False None True and as assert async await break class continue def del elif else " +
    "except finally for from global if import in is lambda nonlocal not or pass raise return " +
    "try while with yield",
  go: "break case chan const continue default defer else fallthrough for func go goto if " +
    "import interface map package range return select struct switch type var",
  rust: "as break const continue crate else enum extern false fn for if impl in let loop match " +
    "mod move mut pub ref return self Self static struct super trait true type unsafe use where " +
    "while async await dyn abstract become box do final macro override priv typeof unsized " +
    "virtual yield try",
  c: C,
  cpp: C + " alignas alignof and and_eq asm bitand bitor bool catch char8_t char16_t char32_t " +
    "class compl concept consteval constexpr constinit const_cast co_await co_return co_yield " +
    "decltype delete dynamic_cast explicit export false friend mutable namespace new noexcept " +
    "not not_eq nullptr operator or or_eq private protected public reinterpret_cast requires " +
    "static_assert static_cast template this thread_local throw true try typeid typename using " +
    "virtual wchar_t xor xor_eq",
  java: "abstract assert boolean break byte case catch char class const continue default do " +
    "double else enum extends final finally float for goto if implements import instanceof int " +
    "interface long native new package private protected public return short static strictfp " +
    "super switch synchronized this throw throws transient try void volatile while true false " +
    "null _",
  ruby: "__ENCODING__ __LINE__ __FILE__ BEGIN END alias and begin break case class def defined? " +
    "do else elsif end ensure false for if in module next nil not or redo rescue retry return " +
    "self super then true undef unless until when while yield",
};

const sets = new Map<SyntaxLanguage, Set<string>>();

/** Whether `name` is a reserved word of `language`. */
export function isReserved(language: SyntaxLanguage, name: string): boolean {
  let set = sets.get(language);
  if (!set) {
    set = new Set((WORDS[language] ?? "").split(" ").filter(Boolean));
    sets.set(language, set);
  }
  return set.has(name);
}
