import type { ClientCapabilities, ServerCapabilities } from "vscode-languageserver-protocol";

/** What lspgate tells every server it can do. */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
  general: {
    // utf-32 would let us skip conversion, but any of the three is handled by positions.ts.
    positionEncodings: ["utf-32", "utf-8", "utf-16"],
  },
  window: { workDoneProgress: true, showMessage: {} },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: false },
    diagnostics: { refreshSupport: true },
    symbol: { dynamicRegistration: false },
    applyEdit: false,
    workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] },
    fileOperations: { willRename: true, didRename: true },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: true, willSave: false },
    publishDiagnostics: { versionSupport: true, relatedInformation: true },
    // Dynamic registration lets pyright announce pull diagnostics, which avoids its empty first push.
    diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
    hover: { contentFormat: ["markdown", "plaintext"] },
    signatureHelp: {
      signatureInformation: {
        documentationFormat: ["markdown", "plaintext"],
        parameterInformation: { labelOffsetSupport: true },
      },
    },
    definition: { linkSupport: true },
    declaration: { linkSupport: true },
    typeDefinition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    callHierarchy: {},
    typeHierarchy: {},
    rename: { prepareSupport: true },
    codeAction: {
      codeActionLiteralSupport: {
        codeActionKind: {
          valueSet: [
            "",
            "quickfix",
            "refactor",
            "refactor.extract",
            "refactor.inline",
            "refactor.rewrite",
            "source",
            "source.organizeImports",
            "source.fixAll",
          ],
        },
      },
      resolveSupport: { properties: ["edit"] },
      dataSupport: true,
    },
    formatting: {},
  },
};

/** True when a server capability value means "supported" (true, or an options object). */
export function capabilityEnabled(capabilities: ServerCapabilities, key: string): boolean {
  const value = (capabilities as Record<string, unknown>)[key];
  return value !== undefined && value !== null && value !== false;
}
