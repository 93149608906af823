import { dirname } from "../src/posix_path.ts";
import type { Adapter } from "../src/servers/adapter.ts";
import { findBinary, realPath } from "../src/servers/find_binary.ts";
import { LspGateError } from "../src/errors.ts";
import {
  PYRIGHT_FILES_LISTED,
  PYRIGHT_WEDGED,
  pyrightAdapter,
  userInterpreter,
} from "./pyright.ts";

const installHint = "Install basedpyright: `pip install basedpyright` (or `npm install -g " +
  "basedpyright` where pyright is not installed globally: both claim `pyright-langserver`).";

/**
 * basedpyright, pyright's fork with stricter defaults and its settings under `basedpyright.*`.
 * Python files go to it where pyright is not installed, or where the user's config prefers it
 * (`"servers": {"basedpyright": {"preferred": true}}`); otherwise to pyright.
 */
export const basedpyrightAdapter: Adapter = {
  id: "basedpyright",
  languages: pyrightAdapter.languages,
  rootMarkers: pyrightAdapter.rootMarkers,
  // Below pyright: when both are installed, pyright serves unless the user prefers this one.
  priority: pyrightAdapter.priority - 1,
  installHint,
  // As pyright: other files are searched only once it has logged their listing.
  readiness: "progress",
  readinessScope: "workspace",
  readyLogMessage: PYRIGHT_FILES_LISTED,
  wedgedBy: PYRIGHT_WEDGED,
  settings: {
    basedpyright: {
      analysis: { logLevel: "Information", autoSearchPaths: true, diagnosticMode: "openFilesOnly" },
    },
  },
  async installed({ workspace }) {
    return (await findBinary("basedpyright-langserver", { root: workspace, workspace })) !==
      undefined;
  },
  async resolve({ root, workspace, configuredCommand, trusted }) {
    // As for pyright: a project's interpreter or venv runs only for a trusted root.
    const interpreter = trusted ? {} : await userInterpreter(workspace);
    if (configuredCommand) return { command: configuredCommand, ...interpreter };
    const found = await findBinary("basedpyright-langserver", { root, workspace, trusted });
    if (!found) {
      throw new LspGateError(
        "SERVER_NOT_INSTALLED",
        `basedpyright-langserver was not found on PATH or in lspgate's tools folder. ${installHint}`,
        { server: "basedpyright" },
      );
    }
    return {
      command: [found, "--stdio"],
      // npm: <pkg>/langserver.index.js; pip: a script whose package lives in site-packages.
      installDir: dirname(await realPath(found)),
      fromWorkspace: found.startsWith(workspace + "/"),
      ...interpreter,
    };
  },
};
