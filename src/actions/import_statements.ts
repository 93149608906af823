// The import statements of a JavaScript/TypeScript or Python file, read from its text: what each
// names, and whether the file passes on what it imports (a re-export), for what-if's importer
// search (importers.ts). Text, not a parse: a statement in a comment or a string may be counted,
// which costs a file checked for nothing, never one missed.

/** One script import: its specifier, whether the file passes on what it binds. */
export interface ScriptImport {
  specifier: string;
  /** An `export … from`, or an import whose binding the file exports (`export { f }`). */
  exported: boolean;
}

/** One Python import: `from module import names` (names as written), or `import module`. */
export interface PythonImport {
  module: string;
  names: string[];
  /** A name it binds is re-exported: listed in `__all__`, or imported as itself (`f as f`). */
  exported: boolean;
}

/** An import or export statement with a module specifier, over lines; `import("x")`, `require`. */
const STATEMENT =
  /(?:^|[;}\n])\s*(import|export)\b((?:[^;"'`]|\n)*?)\bfrom\s*["']([^"'\n]+)["']|(?:^|[;\n])\s*import\s*["']([^"'\n]+)["']|\b(?:import|require)\s*\(\s*["']([^"'\n]+)["']\s*\)/g;
/** `export { a, b as c }` with no `from`: local names the file exports. */
const EXPORT_LIST = /(?:^|[;}\n])\s*export\s+(?:type\s+)?\{([^}]*)\}(?!\s*from\b)/g;
/** `export default a;`, `export = a`: one local name exported. */
const EXPORT_ONE = /(?:^|[;}\n])\s*export\s*(?:default\s+|=\s*)([\w$]+)\s*(?:;|\r?\n|$)/g;
/** Python imports: `from m import (a,\n b)`, `import m.n as x, y`, continued lines kept. */
const PY_FROM =
  /^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n#;\\]|\\\r?\n)*)/gm;
const PY_IMPORT = /^[ \t]*import[ \t]+((?:[^\n#;\\]|\\\r?\n)*)/gm;
/** `__all__ = [...]` (or a tuple, or `+=`): the names a module exports. */
const PY_ALL = /^__all__\s*\+?=\s*[[(]([^\])]*)[\])]/gm;

/** A script's imports, in order: each specifier and whether what it binds is passed on. */
export function scriptImports(text: string): ScriptImport[] {
  const exportedLocals = new Set<string>();
  for (const m of text.matchAll(EXPORT_LIST)) {
    for (const part of m[1].split(",")) {
      const local = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0].trim();
      if (local) exportedLocals.add(local);
    }
  }
  for (const m of text.matchAll(EXPORT_ONE)) exportedLocals.add(m[1]);
  const found: ScriptImport[] = [];
  for (const m of text.matchAll(STATEMENT)) {
    const specifier = m[3] ?? m[4] ?? m[5];
    const exported = m[1] === "export" ||
      (m[1] === "import" && bindings(m[2]).some((name) => exportedLocals.has(name)));
    found.push({ specifier, exported });
  }
  return found;
}

/** The local names an import clause binds: `D, { a, b as c }`, `* as ns`, `type { T }`. */
export function bindings(clause: string): string[] {
  const text = clause.trim().replace(/^type\s+/, "");
  const found: string[] = [];
  const braces = /\{([^}]*)\}/.exec(text);
  for (const part of braces ? braces[1].split(",") : []) {
    const words = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/);
    const local = (words[1] ?? words[0]).trim();
    if (/^[\w$]+$/.test(local)) found.push(local);
  }
  const rest = text.replace(/\{[^}]*\}/, "");
  const star = /\*\s*as\s+([\w$]+)/.exec(rest);
  if (star) found.push(star[1]);
  const first = /^([\w$]+)\s*(?:,|$)/.exec(rest.trim());
  if (first) found.push(first[1]);
  return found;
}

/** A Python file's imports: `from m import a, b` (names kept) and `import m.n as x, y`. */
export function pythonImports(text: string): PythonImport[] {
  const all = new Set<string>();
  for (const m of text.matchAll(PY_ALL)) {
    for (const name of m[1].matchAll(/["'](\w+)["']/g)) all.add(name[1]);
  }
  const parts = (list: string) =>
    list.replace(/[()\\\r\n]/g, " ").split(",").map((part) => part.trim().split(/\s+/))
      .filter((words) => /^[\w.]+$/.test(words[0]));
  const found: PythonImport[] = [];
  for (const m of text.matchAll(PY_FROM)) {
    const listed = parts(m[2]);
    const exported = listed.some(([name, as, local]) =>
      as === "as" ? local === name || all.has(local) : all.has(name)
    );
    found.push({ module: m[1], names: listed.map(([name]) => name), exported });
  }
  for (const m of text.matchAll(PY_IMPORT)) {
    for (const [module] of parts(m[1])) found.push({ module, names: [], exported: false });
  }
  return found;
}
