// Other agents' `lsp` tools name the same things differently (Claude Code and OpenCode:
// `operation`, `filePath`, `character`, camelCase operations). Accepting their names lets an agent
// prompted for one of them use lspgate unchanged.

const ACTION_ALIASES: Record<string, string> = {
  gotodefinition: "definition",
  definition: "definition",
  godefinition: "definition",
  gotodeclaration: "declaration",
  declaration: "declaration",
  gototypedefinition: "type_definition",
  typedefinition: "type_definition",
  gotoimplementation: "implementation",
  implementation: "implementation",
  implementations: "implementation",
  findreferences: "references",
  references: "references",
  reference: "references",
  hover: "hover",
  signature: "signature",
  signaturehelp: "signature",
  documentsymbol: "symbols",
  documentsymbols: "symbols",
  symbols: "symbols",
  outline: "symbols",
  workspacesymbol: "workspace_symbols",
  workspacesymbols: "workspace_symbols",
  diagnostics: "diagnostics",
  diagnostic: "diagnostics",
  getdiagnostics: "diagnostics",
  workspacediagnostics: "workspace_diagnostics",
  callhierarchy: "call_hierarchy",
  preparecallhierarchy: "call_hierarchy",
  incomingcalls: "incoming_calls",
  outgoingcalls: "outgoing_calls",
  supertypes: "supertypes",
  subtypes: "subtypes",
  typehierarchy: "supertypes",
  preparetypehierarchy: "supertypes",
  rename: "rename",
  renamesymbol: "rename",
  renamefile: "rename_file",
  codeaction: "code_actions",
  codeactions: "code_actions",
  format: "format",
  formatting: "format",
  formatdocument: "format",
  status: "status",
  servers: "servers",
  capabilities: "capabilities",
  request: "request",
  rawrequest: "request",
  restart: "restart",
  reload: "restart",
  cancel: "cancel",
};

const FIELD_ALIASES: Record<string, string> = {
  operation: "action",
  filePath: "file",
  file_path: "file",
  path: "file",
  uri: "file",
  character: "column",
  col: "column",
  newName: "new_name",
  includeDeclaration: "include_declaration",
  editHash: "edit_hash",
  ifClean: "if_clean",
  method: "query",
  params: "payload",
  endLine: "end_line",
  endColumn: "end_column",
  endCharacter: "end_column",
  end_character: "end_column",
};

const POSITIONLESS = new Set([
  "symbols",
  "diagnostics",
  "format",
  "rename_file",
  "status",
  "servers",
]);

/** The canonical action name for any accepted spelling, or undefined. */
export function canonicalAction(name: string): string | undefined {
  const key = name.toLowerCase().replace(/[-_\s]/g, "");
  // Own keys only: `constructor` is an inherited property of every object, not an action.
  return Object.hasOwn(ACTION_ALIASES, key) ? ACTION_ALIASES[key] : undefined;
}

/**
 * Rewrites a request to canonical field and action names. A field given under two names is an
 * error the caller should hear about, so both are kept and validation reports the extra one.
 */
export function normalizeRequest(raw: Record<string, unknown>): Record<string, unknown> {
  // Keys are the caller's: looked up as own keys only (`constructor`, `__proto__` are fields like
  // any other, to be refused by name), gathered in a Map and copied out as own data properties.
  const fields = new Map<string, unknown>();
  for (const [key, value] of Object.entries(raw)) {
    const canonical = Object.hasOwn(FIELD_ALIASES, key) ? FIELD_ALIASES[key] : key;
    if (fields.has(canonical) || (canonical !== key && Object.hasOwn(raw, canonical))) {
      fields.set(key, value);
    } else fields.set(canonical, value);
  }
  const out: Record<string, unknown> = Object.fromEntries(fields);
  if (typeof out.action === "string") {
    const action = canonicalAction(out.action) ?? out.action;
    // Two aliases are one action with a fixed argument.
    if (action === "workspace_symbols" || action === "workspace_diagnostics") {
      out.action = action === "workspace_symbols" ? "symbols" : "diagnostics";
      // Peers send their usual filePath along; the workspace is what was asked for, unless it
      // names its files (devkit-pi's workspace-diagnostics takes files[]).
      if (out.files === undefined) out.file = "*";
      else delete out.file;
      delete out.line;
      delete out.column;
    } else {
      out.action = action;
      // Peers send line and character with every operation; these actions take no position.
      if (
        typeof action === "string" && POSITIONLESS.has(action) && Object.hasOwn(raw, "operation")
      ) {
        delete out.line;
        delete out.column;
      }
    }
  }
  return out;
}
