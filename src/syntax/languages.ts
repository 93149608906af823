import { basename, extname } from "../posix_path.ts";

/** A language lspgate has a WebAssembly grammar for (the grammar module's name in `grammars/`). */
export type SyntaxLanguage =
  | "typescript"
  | "tsx"
  | "javascript"
  | "python"
  | "go"
  | "rust"
  | "c"
  | "cpp"
  | "java"
  | "ruby"
  | "bash"
  | "json"
  | "yaml";

/** Every language with a grammar, in a stable order (tests and the benchmark walk them). */
export const SYNTAX_LANGUAGES: readonly SyntaxLanguage[] = [
  "typescript",
  "tsx",
  "javascript",
  "python",
  "go",
  "rust",
  "c",
  "cpp",
  "java",
  "ruby",
  "bash",
  "json",
  "yaml",
];

const BY_EXTENSION: Record<string, SyntaxLanguage> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascript",
  ".py": "python",
  ".pyi": "python",
  ".go": "go",
  ".rs": "rust",
  ".c": "c",
  ".h": "c",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".cxx": "cpp",
  ".c++": "cpp",
  ".hh": "cpp",
  ".hpp": "cpp",
  ".hxx": "cpp",
  ".ipp": "cpp",
  ".java": "java",
  ".rb": "ruby",
  ".rake": "ruby",
  ".gemspec": "ruby",
  ".sh": "bash",
  ".bash": "bash",
  ".json": "json",
  ".jsonc": "json",
  ".yaml": "yaml",
  ".yml": "yaml",
};

const BY_NAME: Record<string, SyntaxLanguage> = {
  Rakefile: "ruby",
  Gemfile: "ruby",
  ".bashrc": "bash",
  ".bash_profile": "bash",
  ".profile": "bash",
};

/** The grammar for a file, by whole name first, then extension; undefined when there is none. */
export function syntaxLanguageOf(file: string): SyntaxLanguage | undefined {
  return BY_NAME[basename(file)] ?? BY_EXTENSION[extname(file).toLowerCase()];
}

/** How the language is named in sentences ("TypeScript"). */
export function languageName(language: SyntaxLanguage): string {
  return NAMES[language];
}

const NAMES: Record<SyntaxLanguage, string> = {
  typescript: "TypeScript",
  tsx: "TSX",
  javascript: "JavaScript",
  python: "Python",
  go: "Go",
  rust: "Rust",
  c: "C",
  cpp: "C++",
  java: "Java",
  ruby: "Ruby",
  bash: "Bash",
  json: "JSON",
  yaml: "YAML",
};
