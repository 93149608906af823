import { commandAdapter } from "../src/servers/command_adapter.ts";
import { refusingProjectCode } from "../src/servers/project_code.ts";

/**
 * csharp-ls for C#. Untested here: written from its documentation. It finds the solution or
 * project file (`*.sln`, `*.csproj`) in the root itself.
 */
export const csharpAdapter = refusingProjectCode(
  commandAdapter({
    id: "csharp",
    tested: false,
    command: ["csharp-ls"],
    languages: { ".cs": "csharp", ".csx": "csharp" },
    rootMarkers: ["global.json", "Directory.Build.props", "Directory.Packages.props"],
    installHint:
      "Install csharp-ls: `dotnet tool install --global csharp-ls` (needs the .NET SDK).",
    readiness: "progress",
  }),
  {
    files: /\.(csproj|sln|slnx|props|targets)$/,
    what: "evaluates MSBuild projects (tasks, analyzers, source generators)",
  },
);
