import { commandAdapter } from "../src/servers/command_adapter.ts";

/**
 * vscode-html-language-server (from vscode-langservers-extracted): HTML with embedded CSS and
 * JavaScript. It publishes no diagnostics of its own for markup; navigation covers embedded code.
 */
export const htmlAdapter = commandAdapter({
  id: "html",
  command: ["vscode-html-language-server", "--stdio"],
  languages: { ".html": "html", ".htm": "html" },
  rootMarkers: [],
  installHint: "Install the HTML server: `npm install -g vscode-langservers-extracted`.",
  initializationOptions: {
    provideFormatter: true,
    embeddedLanguages: { css: true, javascript: true },
  },
  settings: {
    html: { validate: { scripts: true, styles: true }, format: { enable: true } },
    css: { validate: true },
    javascript: { validate: { enable: true } },
  },
});
