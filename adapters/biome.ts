import { dirname } from "../src/posix_path.ts";
import type { Adapter } from "../src/servers/adapter.ts";
import { findBinary, realPath } from "../src/servers/find_binary.ts";
import { LspGateError } from "../src/errors.ts";
import { biomePlugins, pluginConfigAbove } from "../src/servers/config_plugins.ts";

/**
 * Biome, as a linter beside the language server, for projects that configure it (biome.json):
 * its lint diagnostics are merged into `diagnostics`. It negotiates UTF-8 positions.
 */
export const biomeAdapter: Adapter = {
  id: "biome",
  kind: "linter",
  languages: {
    ".ts": "typescript",
    ".tsx": "typescriptreact",
    ".mts": "typescript",
    ".cts": "typescript",
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".json": "json",
    ".jsonc": "jsonc",
    ".css": "css",
  },
  rootMarkers: ["biome.json", "biome.jsonc"],
  priority: 0,
  installHint:
    "Install Biome: `npm install -D @biomejs/biome` (or `npm install -g @biomejs/biome`).",
  readiness: "immediate",
  async refuseFile({ workspace, file }) {
    const config = await pluginConfigAbove(workspace, file, "biome");
    return config && `${config} names plugins (repository code), which Biome would run for it, ` +
        "and the root is not trusted (`--trust` runs them, sandboxed)";
  },
  async resolve({ root, workspace, configuredCommand, trusted }) {
    // Biome has no setting that keeps linting but skips the GritQL and JavaScript plugins a
    // biome.json names: for an untrusted root it does not run at all, and says why.
    const plugins = trusted ? [] : await biomePlugins(workspace);
    if (plugins.length) {
      throw new LspGateError(
        "SERVER_START_FAILED",
        `biome is not started: ${plugins.join(", ")} names plugins (repository code), and the ` +
          "root is not trusted (`--trust` runs them, sandboxed)",
        { server: "biome", configs: plugins },
      );
    }
    if (configuredCommand) return { command: configuredCommand };
    const found = await findBinary("biome", { root, workspace, trusted });
    if (!found) {
      throw new LspGateError(
        "SERVER_NOT_INSTALLED",
        `biome was not found on PATH or in lspgate's tools folder. ${this.installHint}`,
        { server: "biome" },
      );
    }
    // `lsp-proxy` starts (or joins) Biome's daemon, which stops with its last client.
    // <modules>/@biomejs/biome/bin/biome runs the binary of <modules>/@biomejs/cli-<platform>.
    return {
      command: [found, "lsp-proxy"],
      installDir: dirname(dirname(dirname(await realPath(found)))),
      fromWorkspace: found.startsWith(workspace + "/"),
    };
  },
};
