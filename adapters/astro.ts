import { commandAdapter } from "../src/servers/command_adapter.ts";

/**
 * The Astro language server (@astrojs/language-server). Untested here: written from its
 * documentation; it wants a TypeScript SDK (`typescript.tsdk` in initializationOptions).
 */
export const astroAdapter = commandAdapter({
  id: "astro",
  tested: false,
  command: ["astro-ls", "--stdio"],
  languages: { ".astro": "astro" },
  rootMarkers: ["astro.config.mjs", "astro.config.ts", "astro.config.js", "package.json"],
  installHint: "Install the Astro language server: `npm install -g @astrojs/language-server " +
    "typescript`, and set `initializationOptions.typescript.tsdk` in your config.",
});
