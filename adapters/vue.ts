import { commandAdapter } from "../src/servers/command_adapter.ts";
import { refusingRepositoryCode, vuePluginConfigs } from "../src/servers/js_project_code.ts";

/**
 * The Vue language server (@vue/language-server). Untested here: written from its documentation.
 * Run against hostile workspaces (3.3.11 and 2.2.8): it `require`s the `vueCompilerOptions.plugins`
 * of the project's tsconfig/jsconfig (and of configs they extend), resolved from the project
 * (node_modules included) — 2.x in its full mode (`vue.hybridMode: false` with a `typescript.tsdk`
 * in the user's config), 3.x once its client answers `tsserver/request` with the project's
 * tsconfig. It never loads the project's `typescript` (its own, or `--tsdk` / `typescript.tsdk`
 * from the user), nor tsconfig `compilerOptions.plugins`. So for an untrusted root it does not
 * start where a config names Vue plugins. Note: 3.x asks its client for tsserver's project info
 * (`tsserver/request`), which lspgate does not answer: its requests wait until they time out.
 */
export const vueAdapter = refusingRepositoryCode(
  commandAdapter({
    id: "vue",
    tested: false,
    command: ["vue-language-server", "--stdio"],
    languages: { ".vue": "vue" },
    rootMarkers: ["package.json"],
    installHint: "Install the Vue language server: `npm install -g @vue/language-server`.",
  }),
  vuePluginConfigs,
  "would load the vueCompilerOptions.plugins named in",
);
