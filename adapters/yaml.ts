import { commandAdapter } from "../src/servers/command_adapter.ts";

/** What keeps yaml-language-server off the network, whatever a workspace config says. */
const OFFLINE = {
  // The schema store is a web service; lspgate's servers have no network.
  yaml: { schemaStore: { enable: false } },
  // A schema a file names by URL (`# yaml-language-server: $schema=https://…`) would be fetched
  // on the repository's say, unsandboxed: every http(s) request goes to a proxy that is not
  // there (port 1 of loopback: nothing listens there; port 0 would mean 80), so the fetch fails
  // and nothing leaves.
  http: { proxy: "http://127.0.0.1:1", proxyStrictSSL: true },
};

/**
 * yaml-language-server: syntax errors, and validation against a schema named in the file
 * (`# yaml-language-server: $schema=./schema.json`) or in `yaml.schemas`. It validates only
 * with `yaml.validate`, and reaches the network for the schema store and for schemas named by URL
 * unless told not to: both are off.
 */
export const yamlAdapter = commandAdapter({
  id: "yaml",
  command: ["yaml-language-server", "--stdio"],
  languages: { ".yaml": "yaml", ".yml": "yaml" },
  rootMarkers: [],
  // Configuration data: checked when named or globbed, not by the workspace-wide sweep.
  workspaceDiagnostics: false,
  installHint: "Install yaml-language-server: `npm install -g yaml-language-server`.",
  settings: {
    yaml: {
      validate: true,
      hover: true,
      completion: true,
      format: { enable: true },
      schemas: {},
      ...OFFLINE.yaml,
    },
    redhat: { telemetry: { enabled: false } },
    http: OFFLINE.http,
  },
  // A workspace's .lspgate.jsonc cannot turn the network back on (a helper's find: `http.proxy`
  // set to "" fetched its schema, unsandboxed).
  locked: { settings: OFFLINE },
  // It pulls its settings after it starts: a file opened before that was validated with its
  // defaults, proxy and all, and its schema fetched (a helper's find, 3 runs of 3).
  openAfterConfiguration: true,
});
