import { commandAdapter } from "../src/servers/command_adapter.ts";

/** Marksman for Markdown (links, headings, references). Untested here. */
export const marksmanAdapter = commandAdapter({
  id: "marksman",
  tested: false,
  command: ["marksman", "server"],
  languages: { ".md": "markdown", ".markdown": "markdown" },
  rootMarkers: [".marksman.toml"],
  installHint:
    "Install Marksman so it is on PATH (e.g. `brew install marksman`, or a release binary).",
});
