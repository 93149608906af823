import { commandAdapter } from "../src/servers/command_adapter.ts";

/** sourcekit-lsp for Swift. Untested here: written from its documentation. */
export const sourcekitAdapter = commandAdapter({
  id: "sourcekit",
  tested: false,
  command: ["sourcekit-lsp"],
  languages: { ".swift": "swift" },
  rootMarkers: ["Package.swift", "buildServer.json", "compile_commands.json"],
  installHint: "Install a Swift toolchain (it ships `sourcekit-lsp`), or Xcode on macOS " +
    "(`xcrun sourcekit-lsp`: configure that as the command).",
});
