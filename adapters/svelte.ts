import { commandAdapter } from "../src/servers/command_adapter.ts";

/** svelte-language-server (`svelteserver`). Untested here: written from its documentation. */
export const svelteAdapter = commandAdapter({
  id: "svelte",
  tested: false,
  command: ["svelteserver", "--stdio"],
  languages: { ".svelte": "svelte" },
  rootMarkers: ["svelte.config.js", "svelte.config.mjs", "svelte.config.ts", "package.json"],
  installHint: "Install the Svelte language server: `npm install -g svelte-language-server`.",
});
