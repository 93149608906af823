import { commandAdapter } from "../src/servers/command_adapter.ts";
import { refusingProjectCode } from "../src/servers/project_code.ts";

/** ElixirLS. Untested here: written from its documentation. */
export const elixirAdapter = refusingProjectCode(
  commandAdapter({
    id: "elixir",
    tested: false,
    command: ["elixir-ls"],
    alternatives: ["language_server.sh"],
    languages: { ".ex": "elixir", ".exs": "elixir", ".heex": "phoenix-heex" },
    rootMarkers: ["mix.exs"],
    installHint: "Install ElixirLS so `elixir-ls` (or its `language_server.sh`) is on PATH " +
      "(e.g. `brew install elixir-ls`).",
    settings: { elixirLS: { dialyzerEnabled: false, fetchDeps: false } },
    readiness: "progress",
  }),
  {
    files: /^mix\.exs$/,
    what: "evaluates mix.exs and compiles the project",
  },
);
