import { commandAdapter } from "../src/servers/command_adapter.ts";

/**
 * Schemas are loaded from files only. Others (https:) are asked of the client, which has none to
 * give: a repository's `$schema` URL never makes the server reach the network.
 */
const FILES_ONLY = { handledSchemaProtocols: ["file"] };

/**
 * vscode-json-language-server (from vscode-langservers-extracted): validation against the
 * document's `$schema` (a file beside it, by relative path) and the schemas configured in
 * `json.schemas`. It validates only with `json.validate.enable`, and formats only when told it
 * may (`provideFormatter`).
 */
export const jsonAdapter = commandAdapter({
  id: "json",
  command: ["vscode-json-language-server", "--stdio"],
  languages: { ".json": "json", ".jsonc": "jsonc" },
  rootMarkers: [],
  // Configuration data: checked when named or globbed, not by the workspace-wide sweep.
  workspaceDiagnostics: false,
  // Low: where Biome is configured it lints JSON beside this server.
  priority: 5,
  installHint: "Install the JSON server: `npm install -g vscode-langservers-extracted`.",
  initializationOptions: { provideFormatter: true, ...FILES_ONLY },
  // A workspace's .lspgate.jsonc cannot add http (a helper's find: it fetched its schema).
  locked: { initializationOptions: FILES_ONLY },
  settings: {
    json: { validate: { enable: true }, format: { enable: true }, schemas: [] },
    http: { proxyStrictSSL: true },
  },
});
