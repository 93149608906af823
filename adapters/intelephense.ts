import { commandAdapter } from "../src/servers/command_adapter.ts";

/** Intelephense for PHP. Untested here: written from its documentation. */
export const intelephenseAdapter = commandAdapter({
  id: "intelephense",
  tested: false,
  command: ["intelephense", "--stdio"],
  languages: { ".php": "php", ".phtml": "php" },
  rootMarkers: ["composer.json"],
  installHint: "Install Intelephense: `npm install -g intelephense`.",
});
