import { commandAdapter } from "../src/servers/command_adapter.ts";

/** dockerfile-language-server-nodejs (`docker-langserver`): Dockerfiles, by name or extension. */
export const dockerfileAdapter = commandAdapter({
  id: "dockerfile",
  command: ["docker-langserver", "--stdio"],
  languages: { ".dockerfile": "dockerfile" },
  filenames: { "Dockerfile": "dockerfile", "Containerfile": "dockerfile" },
  rootMarkers: [],
  installHint: "Install the Dockerfile server: `npm install -g dockerfile-language-server-nodejs`.",
  settings: { docker: { languageserver: { formatter: { ignoreMultilineInstructions: false } } } },
});
