import assert from "node:assert/strict";
import { fromAgentLspConfig, isAgentLspConfig } from "./config_agents.ts";
import { parseConfig } from "./config.ts";
import { LspGateError } from "./errors.ts";

Deno.test("isAgentLspConfig() tells Claude Code's and Copilot CLI's files from lspgate's", () => {
  assert.equal(
    isAgentLspConfig({ go: { command: "gopls", extensionToLanguage: { ".go": "go" } } }),
    true,
  );
  assert.equal(isAgentLspConfig({ lspServers: {} }), true);
  assert.equal(isAgentLspConfig({ servers: { nix: { command: ["nil"] } } }), false);
  assert.equal(isAgentLspConfig({}), false);
});

Deno.test("fromAgentLspConfig() keeps each extension's language, the args, env and settings", () => {
  const config = fromAgentLspConfig({
    ts: {
      command: "${CLAUDE_PLUGIN_ROOT}/bin/tsls",
      args: ["--stdio"],
      extensionToLanguage: { ".ts": "typescript", ".tsx": "typescriptreact" },
      env: { TSLS_HOME: "${CLAUDE_PLUGIN_ROOT}/lib" },
      initializationOptions: { preferences: {} },
      settings: { typescript: {} },
      startupTimeout: 90000,
      maxRestarts: 3,
    },
  }, { file: "/p/.lsp.json", pluginRoot: "/plugins/ts" });
  assert.deepEqual(config, {
    servers: {
      ts: {
        command: ["/plugins/ts/bin/tsls", "--stdio"],
        extensions: [".ts", ".tsx"],
        extensionToLanguage: { ".ts": "typescript", ".tsx": "typescriptreact" },
        env: { TSLS_HOME: "/plugins/ts/lib" },
        initializationOptions: { preferences: {} },
        settings: { typescript: {} },
      },
    },
    startTimeoutMs: 90000,
  });
});

Deno.test("parseConfig() reads Copilot CLI's lsp-config.json as servers of the user's", () => {
  const config = parseConfig(
    `{"lspServers": {"rb": {"command": "ruby-lsp", "fileExtensions": {".rb": "ruby"}}}}`,
    "/home/me/.copilot/lsp-config.json",
    { knownServers: ["pyright"] },
  );
  assert.deepEqual(config.servers.rb.command, ["ruby-lsp"]);
  assert.deepEqual(config.servers.rb.extensionToLanguage, { ".rb": "ruby" });
});

Deno.test("fromAgentLspConfig() refuses a socket transport and an unknown key, naming file and key", () => {
  const refused = (json: Record<string, unknown>) =>
    assert.throws(() => fromAgentLspConfig(json, { file: "/p/.lsp.json" }), LspGateError);
  refused({ go: { command: "gopls", extensionToLanguage: { ".go": "go" }, transport: "socket" } });
  assert.throws(
    () =>
      fromAgentLspConfig(
        { go: { command: "gopls", extensionToLanguage: { ".go": "go" }, bogus: 1 } },
        { file: "/p/.lsp.json" },
      ),
    /config \/p\/\.lsp\.json: go\.bogus: unknown key/,
  );
  refused({ go: { command: "gopls", extensionToLanguage: {} } });
  refused({ lspServers: "./.lsp.json" });
});
