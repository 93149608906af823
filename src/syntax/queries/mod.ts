import type { SyntaxLanguage } from "../languages.ts";
import { BASH } from "./bash.ts";
import { C, CPP } from "./c.ts";
import { JSON_KEYS, YAML_KEYS } from "./data.ts";
import { GO } from "./go.ts";
import { JAVA } from "./java.ts";
import { PYTHON } from "./python.ts";
import { RUBY } from "./ruby.ts";
import { RUST } from "./rust.ts";
import { JAVASCRIPT, TYPESCRIPT } from "./typescript.ts";

/** The outline query of each language (tree-sitter query syntax). */
export const OUTLINE_QUERIES: Readonly<Record<SyntaxLanguage, string>> = {
  typescript: TYPESCRIPT,
  tsx: TYPESCRIPT,
  javascript: JAVASCRIPT,
  python: PYTHON,
  go: GO,
  rust: RUST,
  c: C,
  cpp: CPP,
  java: JAVA,
  ruby: RUBY,
  bash: BASH,
  json: JSON_KEYS,
  yaml: YAML_KEYS,
};
