import type { Adapter } from "../src/servers/adapter.ts";
import { commandAdapter } from "../src/servers/command_adapter.ts";
import { pluginConfigAbove, svelteConfigs } from "../src/servers/config_plugins.ts";
import { LspGateError } from "../src/errors.ts";

const svelte = commandAdapter({
  id: "svelte",
  tested: false,
  command: ["svelteserver", "--stdio"],
  languages: { ".svelte": "svelte" },
  rootMarkers: ["svelte.config.js", "svelte.config.mjs", "svelte.config.ts", "package.json"],
  installHint: "Install the Svelte language server: `npm install -g svelte-language-server`.",
});

/**
 * svelte-language-server (`svelteserver`). Untested here: written from its documentation. It
 * imports the project's svelte.config.js (and the preprocessors it names) and has no setting
 * against it, so for a root the user has not trusted it does not start where one exists.
 */
export const svelteAdapter: Adapter = {
  ...svelte,
  async refuseFile({ workspace, file }) {
    const config = await pluginConfigAbove(workspace, file, "svelte");
    return config && `svelte-language-server would run ${config} (repository code) for it, and ` +
        "the root is not trusted (`--trust` runs it, sandboxed)";
  },
  async resolve(context) {
    const configs = context.trusted ? [] : await svelteConfigs(context.workspace);
    if (configs.length) {
      throw new LspGateError(
        "SERVER_START_FAILED",
        `svelte is not started: svelte-language-server would run ${configs.join(", ")} ` +
          "(repository code), and the root is not trusted (`--trust` runs it, sandboxed)",
        { server: "svelte", configs },
      );
    }
    return await svelte.resolve(context);
  },
};
