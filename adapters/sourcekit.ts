import { commandAdapter } from "../src/servers/command_adapter.ts";
import { refusingProjectCode } from "../src/servers/project_code.ts";

/** sourcekit-lsp for Swift. Untested here: written from its documentation. */
export const sourcekitAdapter = refusingProjectCode(
  commandAdapter({
    id: "sourcekit",
    tested: false,
    command: ["sourcekit-lsp"],
    languages: { ".swift": "swift" },
    rootMarkers: ["Package.swift", "buildServer.json", "compile_commands.json"],
    installHint: "Install a Swift toolchain (it ships `sourcekit-lsp`), or Xcode on macOS " +
      "(`xcrun sourcekit-lsp`: configure that as the command).",
  }),
  {
    files: /^Package\.swift$/,
    what: "evaluates Package.swift",
  },
);
