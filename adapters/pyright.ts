import { dirname } from "node:path";
import type { Adapter } from "../src/servers/adapter.ts";
import { findBinary, onPath, realPath } from "../src/servers/find_binary.ts";
import { LspGateError } from "../src/errors.ts";

/** pyright (or basedpyright), from the project's node_modules or PATH. */
export const pyrightAdapter: Adapter = {
  id: "pyright",
  languages: { ".py": "python", ".pyi": "python" },
  rootMarkers: [
    "pyrightconfig.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "Pipfile",
  ],
  priority: 10,
  installHint: "Install pyright: `npm install -g pyright` (or `pip install pyright`).",
  readiness: "immediate",
  settings: {
    python: {
      analysis: {
        autoSearchPaths: true,
        useLibraryCodeForTypes: true,
        diagnosticMode: "openFilesOnly",
      },
    },
    pyright: {},
  },
  async resolve({ root, workspace, configuredCommand, trusted }) {
    // A repository's pyproject/pyrightconfig may name an interpreter or venv inside it, which
    // pyright would run to learn its search paths: untrusted, it is told to use the user's.
    const interpreter = trusted ? {} : await userInterpreter(workspace);
    if (configuredCommand) return { command: configuredCommand, ...interpreter };
    for (const name of ["pyright-langserver", "basedpyright-langserver"]) {
      const found = await findBinary(name, { root, workspace, trusted });
      if (found) {
        const real = await realPath(found);
        // npm links bin/pyright-langserver to <pkg>/langserver.index.js: the package is its folder.
        return {
          command: [found, "--stdio"],
          installDir: dirname(real),
          fromWorkspace: found.startsWith(workspace + "/"),
          ...interpreter,
        };
      }
    }
    throw new LspGateError(
      "SERVER_NOT_INSTALLED",
      `pyright-langserver was not found on PATH or in lspgate's tools folder. ${this.installHint}`,
      { server: "pyright" },
    );
  },
};

/**
 * Settings that pin pyright to the user's Python (the first `python3` or `python` on PATH outside
 * the workspace), so a project's `venv` / `venvPath` or a `python` inside it is never executed.
 */
async function userInterpreter(
  workspace: string,
): Promise<{ settings: Record<string, unknown>; note: string }> {
  const python = await onPath("python3", workspace) ?? await onPath("python", workspace);
  // With no Python at all, an absolute path that does not exist makes pyright run nothing.
  const pythonPath = python ?? "/nonexistent/lspgate-no-python";
  return {
    settings: { python: { pythonPath } },
    note: `Python: ${
      python ?? "none found"
    } (the project's own interpreter is not run: root not trusted)`,
  };
}
