// Who may run what: pure decisions, no I/O.
import { LspGateError } from "../errors.ts";

/** The caller's role: a sub-agent never writes. */
export type Role = "main" | "subagent";

/** Whether an action only looks (`read`) or changes files or server state (`write`). */
export type Access = "read" | "write";

/** What decide() weighs. `action` is named in the reason as given, e.g. "rename with apply". */
export interface PolicyRequest {
  action: string;
  access: Access;
  role: Role;
  allowMutations: boolean;
}

/** decide()'s answer: allowed, or refused with a reason that names what would allow it. */
export type Decision = { allow: true } | { allow: false; reason: string };

/** Decides whether `request` may run. Reads always may; writes need role main and allowMutations. */
export function decide(request: PolicyRequest): Decision {
  if (request.access === "read") return { allow: true };
  if (request.role !== "main") {
    // Architecture Invariant: no configuration can lift this; only the role can.
    return {
      allow: false,
      reason:
        `${request.action} is a write action; --role ${request.role} never runs write actions`,
    };
  }
  if (request.allowMutations !== true) {
    return {
      allow: false,
      reason: `${request.action} is a write action; run lspgate with --allow-mutations ` +
        `(or set "allowMutations": true in the config) to allow it`,
    };
  }
  return { allow: true };
}

/** Like decide(), but throws ACTION_NOT_ALLOWED with the reason when refused. */
export function enforce(request: PolicyRequest): void {
  const decision = decide(request);
  if (!decision.allow) {
    throw new LspGateError("ACTION_NOT_ALLOWED", decision.reason, {
      action: request.action,
      role: request.role,
    });
  }
}

/**
 * Raw LSP methods the `request` action may send as read. Everything else is
 * write-class, including every notification (didOpen/didChange/didSave/
 * didRenameFiles change the server's view of the disk) and lifecycle methods
 * (initialize, shutdown, exit).
 *
 * Rationale for the edges:
 * - `workspace/executeCommand` is ALWAYS write: a command may do anything the
 *   server can (run builds, organise imports), and servers apply its edits by
 *   sending `workspace/applyEdit` back to us.
 * - `textDocument/rename`, `workspace/will{Rename,Create,Delete}Files`, `codeAction/resolve`
 *   and the formatting requests are read: per the spec they only return a
 *   WorkspaceEdit or TextEdit[], which `request` hands back without applying.
 *   (The rename, rename_file, code_actions and format actions preview the
 *   same way as readonly; applying is the privileged step.)
 * - `workspace/applyEdit` goes server → client; sending it is write.
 */
export const READONLY_LSP_METHODS: ReadonlySet<string> = new Set([
  "textDocument/definition",
  "textDocument/declaration",
  "textDocument/typeDefinition",
  "textDocument/implementation",
  "textDocument/references",
  "textDocument/hover",
  "textDocument/signatureHelp",
  "textDocument/documentSymbol",
  "textDocument/documentHighlight",
  "textDocument/foldingRange",
  "textDocument/selectionRange",
  "textDocument/semanticTokens/full",
  "textDocument/semanticTokens/full/delta",
  "textDocument/semanticTokens/range",
  "textDocument/inlayHint",
  "textDocument/inlineValue",
  "textDocument/codeLens",
  "textDocument/documentLink",
  "textDocument/documentColor",
  "textDocument/colorPresentation",
  "textDocument/linkedEditingRange",
  "textDocument/diagnostic",
  "textDocument/prepareCallHierarchy",
  "textDocument/prepareTypeHierarchy",
  "textDocument/prepareRename",
  "textDocument/rename",
  "textDocument/moniker",
  "textDocument/codeAction",
  "textDocument/completion",
  "textDocument/formatting",
  "textDocument/rangeFormatting",
  "textDocument/rangesFormatting",
  "textDocument/onTypeFormatting",
  "callHierarchy/incomingCalls",
  "callHierarchy/outgoingCalls",
  "typeHierarchy/supertypes",
  "typeHierarchy/subtypes",
  "workspace/symbol",
  "workspaceSymbol/resolve",
  "workspace/diagnostic",
  "workspace/willRenameFiles",
  "workspace/willCreateFiles",
  "workspace/willDeleteFiles",
  "completionItem/resolve",
  "codeAction/resolve",
  "codeLens/resolve",
  "documentLink/resolve",
  "inlayHint/resolve",
]);

/** The access class of a raw LSP method for the `request` action: read only if allowlisted. */
export function accessForRawMethod(method: string): Access {
  return READONLY_LSP_METHODS.has(method) ? "read" : "write";
}
