import { basename, dirname } from "../src/posix_path.ts";
import type { Adapter, ServerCommand } from "../src/servers/adapter.ts";
import { denoLintPlugins, pluginConfigAbove } from "../src/servers/config_plugins.ts";
import { onPath } from "../src/servers/find_binary.ts";
import { LspGateError } from "../src/errors.ts";

const settings = { enable: true, lint: true, unstable: true };

/** `deno lsp`: built into Deno, so it needs no install; the default for TypeScript without a project. */
export const denoAdapter: Adapter = {
  id: "deno",
  languages: {
    ".ts": "typescript",
    ".tsx": "typescriptreact",
    ".mts": "typescript",
    ".cts": "typescript",
    ".js": "javascript",
    ".jsx": "javascriptreact",
    ".mjs": "javascript",
    ".cjs": "javascript",
  },
  rootMarkers: ["deno.json", "deno.jsonc"],
  priority: 20,
  installHint: "Install Deno: `npm install -g deno` (or see https://docs.deno.com).",
  readiness: "immediate",
  // tower-lsp serves 4 requests at once and reads nothing more meanwhile, so the answer to its own
  // workspace/configuration must never wait behind 4 of ours (see ClientOptions).
  maxRequestsInFlight: 3,
  initializationOptions: settings,
  settings: { deno: settings },
  // The upgrade check reaches the network, which a sandbox has not.
  env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
  async refuseFile({ workspace, file }) {
    const config = await pluginConfigAbove(workspace, file, "deno");
    return config && `${config} names lint plugins (repository code), which deno lsp would run ` +
        "for it, and the root is not trusted (`--trust` runs them, sandboxed)";
  },
  async resolve({ workspace, configuredCommand, trusted }) {
    const lint = trusted ? {} : await lintWithoutPlugins(workspace);
    if (configuredCommand) return { command: configuredCommand, ...lint };
    // Running under Deno, the binary running us is a deno; a `deno compile` binary is not.
    const self = Deno.execPath();
    const deno = basename(self).startsWith("deno") ? self : await onPath("deno");
    if (!deno) {
      throw new LspGateError("SERVER_NOT_INSTALLED", `deno was not found. ${this.installHint}`, {
        server: "deno",
      });
    }
    return {
      command: [deno, "lsp"],
      installDir: dirname(deno),
      ...lint,
      note: [`deno ${Deno.version.deno}`, lint.note].filter(Boolean).join("; "),
    };
  },
};

/**
 * Linting off where the workspace's Deno config names lint plugins: `deno lsp` would run that
 * repository code, and has no setting that keeps linting but skips plugins.
 */
async function lintWithoutPlugins(
  workspace: string,
): Promise<Pick<ServerCommand, "initializationOptions" | "settings" | "note">> {
  const configs = await denoLintPlugins(workspace);
  if (!configs.length) return {};
  return {
    initializationOptions: { lint: false },
    settings: { deno: { lint: false } },
    note: `deno lint off: ${configs.join(", ")} names lint plugins (repository code), and the ` +
      "root is not trusted",
  };
}
