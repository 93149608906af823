import { commandAdapter } from "../src/servers/command_adapter.ts";

const lint = { validate: true, lint: {} };

/** vscode-css-language-server (from vscode-langservers-extracted): CSS, SCSS and Less. */
export const cssAdapter = commandAdapter({
  id: "css",
  command: ["vscode-css-language-server", "--stdio"],
  languages: { ".css": "css", ".scss": "scss", ".less": "less" },
  rootMarkers: [],
  priority: 5,
  installHint: "Install the CSS server: `npm install -g vscode-langservers-extracted`.",
  initializationOptions: { provideFormatter: true },
  // It validates only the languages whose `validate` setting is true.
  settings: { css: lint, scss: lint, less: lint },
});
