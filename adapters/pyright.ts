import { dirname } from "node:path";
import type { Adapter } from "../src/servers/adapter.ts";
import { findBinary, realPath } from "../src/servers/find_binary.ts";
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
  async resolve({ root, workspace, configuredCommand }) {
    if (configuredCommand) return { command: configuredCommand };
    for (const name of ["pyright-langserver", "basedpyright-langserver"]) {
      const found = await findBinary(name, { root, workspace });
      if (found) {
        const real = await realPath(found);
        // npm links bin/pyright-langserver to <pkg>/langserver.index.js: the package is its folder.
        return { command: [found, "--stdio"], installDir: dirname(real) };
      }
    }
    throw new LspGateError(
      "SERVER_NOT_INSTALLED",
      `pyright-langserver was not found in node_modules/.bin or on PATH. ${this.installHint}`,
      { server: "pyright" },
    );
  },
};
