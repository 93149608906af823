const SYMBOL_KINDS = [
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum_member",
  "struct",
  "event",
  "operator",
  "type_parameter",
];

/** An LSP SymbolKind as a word ("function"); unknown kinds as "symbol". */
export function symbolKindName(kind: unknown): string {
  return typeof kind === "number" ? SYMBOL_KINDS[kind - 1] ?? "symbol" : "symbol";
}

const SEVERITIES = ["error", "warning", "info", "hint"] as const;

/** A diagnostic severity as a word; a missing severity counts as an error, as in editors. */
export type Severity = typeof SEVERITIES[number];

/** LSP DiagnosticSeverity (1..4) as a word. */
export function severityName(severity: unknown): Severity {
  return typeof severity === "number" ? SEVERITIES[severity - 1] ?? "error" : "error";
}

/** The rank of a severity word, 1 (error) to 4 (hint). */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity) + 1;
}
