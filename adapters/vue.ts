import { commandAdapter } from "../src/servers/command_adapter.ts";

/**
 * The Vue language server (@vue/language-server). Untested here: written from its
 * documentation. Version 3 answers for templates and leaves script blocks to a TypeScript server
 * with its plugin, which lspgate does not set up.
 */
export const vueAdapter = commandAdapter({
  id: "vue",
  tested: false,
  command: ["vue-language-server", "--stdio"],
  languages: { ".vue": "vue" },
  rootMarkers: ["package.json"],
  installHint: "Install the Vue language server: `npm install -g @vue/language-server`.",
});
