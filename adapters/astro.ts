import { commandAdapter } from "../src/servers/command_adapter.ts";
import { astroProjectCode, refusingRepositoryCode } from "../src/servers/js_project_code.ts";

/**
 * The Astro language server (@astrojs/language-server). Untested here (written from its
 * documentation) but for tests/security/astro_code_test.ts, which hovers with it; it wants a
 * TypeScript SDK (`typescript.tsdk` in initializationOptions, a folder the sandbox shows it). Run
 * against a hostile workspace (2.17.1): it `require`s `@astrojs/svelte` and `@astrojs/vue`'s
 * `dist/editor.cjs` from the project's node_modules for each .svelte/.vue file the project holds,
 * and to format it loads the project's `prettier` and `prettier-plugin-astro`, and (through
 * prettier, its own included) a JS prettier config and the plugins a config names. It does not run
 * the project's `astro` package (it reads its package.json and types), tsconfig
 * `compilerOptions.plugins`, or astro.config.*. None of it has a setting, so for an untrusted root it
 * does not start where such packages or configs are found.
 */
export const astroAdapter = refusingRepositoryCode(
  commandAdapter({
    id: "astro",
    tested: false,
    command: ["astro-ls", "--stdio"],
    languages: { ".astro": "astro" },
    rootMarkers: ["astro.config.mjs", "astro.config.ts", "astro.config.js", "package.json"],
    installHint: "Install the Astro language server: `npm install -g @astrojs/language-server " +
      "typescript`, and set `initializationOptions.typescript.tsdk` in your config.",
  }),
  astroProjectCode,
  "would run",
);
