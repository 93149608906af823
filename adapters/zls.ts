import { commandAdapter } from "../src/servers/command_adapter.ts";
import { refusingProjectCode } from "../src/servers/project_code.ts";

/** zls, the Zig language server. Untested here: written from its documentation. */
export const zlsAdapter = refusingProjectCode(
  commandAdapter({
    id: "zls",
    tested: false,
    command: ["zls"],
    languages: { ".zig": "zig", ".zon": "zig" },
    rootMarkers: ["build.zig", "zls.json"],
    installHint: "Install zls matching your Zig version so it is on PATH " +
      "(e.g. `brew install zls`, or a release binary).",
  }),
  {
    files: /^build\.zig$/,
    what: "runs build.zig",
  },
);
