import { dirname, join } from "../src/posix_path.ts";
import type { Adapter, HierarchyItemText, ServerCommand } from "../src/servers/adapter.ts";
import { installationOf, pyenvTarget } from "../src/servers/runtime_paths.ts";
import { findBinary, onPath, realPath, searchFolders } from "../src/servers/find_binary.ts";
import { LspGateError } from "../src/errors.ts";

/** pyright's log line once it has listed the workspace's source files. */
export const PYRIGHT_FILES_LISTED = "^(Found \\d+ source files?|No source files found)";
/**
 * vscode-jsonrpc's CancellationTokenSource cancelled a second time (or after its disposal): pyright
 * then fails the same request kind for good (a helper saw every later references fail so, about one
 * run in six after a file was created during references).
 */
export const PYRIGHT_WEDGED = "_token\\.cancel is not a function";

/** pyright, from PATH or lspgate's tools folder (a trusted root's node_modules first). */
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
  hierarchyItem: pyrightHierarchyItem,
  // Its workspace symbols are the names its binder declares in the tracked .py/.pyi files under the
  // root (isUserCode), matched by isPatternInSymbol: the query's characters in order, case aside.
  // Unless a config says otherwise it leaves out node_modules, __pycache__ and hidden folders.
  symbolIndex: {
    extensions: [".py", ".pyi"],
    skips: ["node_modules", "__pycache__"],
    configs: ["pyrightconfig.json", "pyproject.toml"],
    // A Python identifier: up to a blank or ASCII punctuation other than `_` (so any non-ASCII).
    word: /[^\s!-/:-@[-^`{-~]+/g,
  },
  // It answers about a file and what it imports at once, but lists the workspace's other files
  // after `initialized` (after running the interpreter for its search paths) and says when only
  // in a log line: until then references and workspace symbols miss the files not open.
  readiness: "progress",
  readinessScope: "workspace",
  readyLogMessage: PYRIGHT_FILES_LISTED,
  wedgedBy: PYRIGHT_WEDGED,
  settings: {
    python: {
      analysis: {
        // "Information": the file listing's end is logged at that level.
        logLevel: "Information",
        autoSearchPaths: true,
        useLibraryCodeForTypes: true,
        diagnosticMode: "openFilesOnly",
      },
    },
    pyright: {},
  },
  async installed({ workspace }) {
    return (await findPyright({ root: workspace, workspace, trusted: false })) !== undefined;
  },
  async resolve({ root, workspace, configuredCommand, trusted }) {
    // A repository's pyproject/pyrightconfig may name an interpreter or venv inside it, which
    // pyright would run to learn its search paths: untrusted, it is told to use the user's.
    const interpreter = trusted ? {} : await userInterpreter(workspace);
    if (configuredCommand) return { command: configuredCommand, ...interpreter };
    const found = await findPyright({ root, workspace, trusted });
    if (found) {
      return {
        command: [found.path, "--stdio"],
        // npm links bin/pyright-langserver to <pkg>/langserver.index.js: the package is its folder.
        installDir: dirname(found.real),
        fromWorkspace: found.path.startsWith(workspace + "/"),
        ...interpreter,
      };
    }
    throw new LspGateError(
      "SERVER_NOT_INSTALLED",
      `pyright-langserver was not found on PATH or in lspgate's tools folder. ${this.installHint}`,
      { server: "pyright" },
    );
  },
};

/**
 * pyright's own `pyright-langserver`. basedpyright's npm package installs a `pyright-langserver`
 * too (an alias of basedpyright's): that one is passed over, since the basedpyright adapter,
 * with basedpyright's settings, serves where it is the only one installed.
 */
async function findPyright(
  options: { root: string; workspace: string; trusted: boolean },
): Promise<{ path: string; real: string } | undefined> {
  const candidates = new Set([await findBinary("pyright-langserver", options)]);
  for (const folder of searchFolders(options.workspace)) {
    candidates.add(join(folder, "pyright-langserver"));
  }
  for (const path of candidates) {
    if (!path || !isFile(path)) continue;
    const real = await realPath(path);
    if (!real.includes("/basedpyright/")) return { path, real };
  }
  return undefined;
}

/** In the thread: a stat opens nothing, and a start asked ~40 (each a hop to Deno's pool). */
function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * Settings that pin pyright to the user's Python (the first `python3` or `python` on PATH outside
 * the workspace), so a project's `venv` / `venvPath` or a `python` inside it is never executed;
 * and what running that Python reads, for the sandbox to show: pyright runs it for the stdlib and
 * site-packages paths, and a pyenv shim (a bash script running pyenv) stands for the version it
 * would run.
 */
export async function userInterpreter(workspace: string): Promise<
  Pick<ServerCommand, "settings" | "note" | "readOnlyPaths" | "env">
> {
  const found = await onPath("python3", workspace) ?? await onPath("python", workspace);
  const python = found ? await pyenvTarget(found) ?? found : undefined;
  // With no Python at all, an absolute path that does not exist makes pyright run nothing.
  const pythonPath = python ?? "/nonexistent/lspgate-no-python";
  const runtime = python ? await installationOf(python) : { paths: [], env: {} };
  return {
    settings: { python: { pythonPath } },
    readOnlyPaths: runtime.paths,
    env: runtime.env,
    note: `Python: ${
      python ?? "none found"
    } (the project's own interpreter is not run: root not trusted)`,
  };
}

/**
 * pyright's call hierarchy items: a module caller is named `(module) main.py`, and each detail
 * repeats the item's file in parentheses and where it lives (`(calls.py) · Workspace`), which
 * read as `asdict ((_funcs.py))` beside the path (issue 17). The module is named by its file; the
 * detail keeps only what the path does not say (`Standard library`).
 */
export function pyrightHierarchyItem(item: HierarchyItemText): HierarchyItemText {
  const name = item.name.replace(/^\(module\)\s+/, "");
  const file = decodeURIComponent(item.uri.slice(item.uri.lastIndexOf("/") + 1));
  const parts = (item.detail ?? "").split("·").map((part) => part.trim()).filter((part) =>
    part !== "" && part !== `(${file})` && part !== "Workspace" && part !== "(module)"
  );
  return { name, uri: item.uri, ...(parts.length ? { detail: parts.join(" · ") } : {}) };
}
