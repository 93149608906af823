import { commandAdapter } from "../src/servers/command_adapter.ts";

/** The Dart SDK's analysis server (`dart language-server`). Untested here. */
export const dartAdapter = commandAdapter({
  id: "dart",
  tested: false,
  command: ["dart", "language-server", "--protocol=lsp", "--client-id=lspgate"],
  languages: { ".dart": "dart" },
  rootMarkers: ["pubspec.yaml", "analysis_options.yaml"],
  installHint: "Install the Dart SDK (or Flutter, which includes it) so `dart` is on PATH.",
  initializationOptions: { onlyAnalyzeProjectsWithOpenFiles: true },
});
