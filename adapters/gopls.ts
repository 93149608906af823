import { dirname } from "../src/posix_path.ts";
import type { Adapter, ServerCommand } from "../src/servers/adapter.ts";
import { findBinary, onPath, realPath } from "../src/servers/find_binary.ts";
import { LspGateError } from "../src/errors.ts";
import { type GoSetup, goSetup } from "../src/servers/go_env.ts";

const installHint = "Install gopls with Go: `go install golang.org/x/tools/gopls@latest` " +
  "(into a folder on PATH, e.g. GOBIN=~/.local/bin), or Debian's older `apt-get install gopls`. " +
  "It needs the Go toolchain (`go`) on PATH.";

/**
 * gopls for Go modules and go.work workspaces. It runs `go list` to load packages, so it needs
 * the Go toolchain on PATH and, in the sandbox, GOROOT, the module cache and its own file cache
 * bound read-only (src/servers/go_env.ts).
 * A repository chooses no toolchain: GOTOOLCHAIN=local keeps a go.mod's `toolchain` line from
 * downloading and running another Go, and GOPROXY=off keeps `go list` from fetching modules.
 */
export const goplsAdapter: Adapter = {
  id: "gopls",
  languages: { ".go": "go" },
  rootMarkers: ["go.work", "go.mod"],
  // A go.work above a module makes one workspace of its modules, as `go` itself finds it.
  workspaceMarkers: ["go.work"],
  priority: 10,
  installHint,
  // gopls holds each request until the workspace is loaded, and answers it then.
  readiness: "immediate",
  // A file its build leaves out: asked, as its view's push races the default view's empty one.
  diagnosticsHook: "gopls",
  // What its build rules read of lspgate's environment (go_build.ts), handed to its client.
  hostEnv: ["GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS"],
  // gopls v0.23 told of b/b.go created in a new folder (didChangeWatchedFiles) loads no package
  // for it until it is opened: references to a.Foo kept missing its call, complete.
  openCreatedFiles: true,
  env: { GOTOOLCHAIN: "local", GOPROXY: "off" },
  // Workspace symbols from the workspace, matched as a substring: an agent searching its code
  // wants its code, not fuzzy matches from the standard library.
  initializationOptions: { symbolScope: "workspace", symbolMatcher: "CaseInsensitive" },
  settings: { gopls: { symbolScope: "workspace", symbolMatcher: "CaseInsensitive" } },
  async resolve({ root, workspace, configuredCommand, trusted }) {
    const go = await onPath("go", workspace);
    if (!go) {
      throw new LspGateError(
        "SERVER_NOT_INSTALLED",
        `gopls needs the Go toolchain, and \`go\` was not found on PATH. ${installHint}`,
        { server: "gopls" },
      );
    }
    // <GOROOT>/bin/go, also when PATH holds a link to it (/usr/bin/go → /usr/lib/go-1.x/bin/go).
    const goroot = dirname(dirname(await realPath(go)));
    if (configuredCommand) return withSetup(configuredCommand, await goSetup(goroot));
    const found = await findBinary("gopls", { root, workspace, trusted });
    if (!found) {
      throw new LspGateError(
        "SERVER_NOT_INSTALLED",
        `gopls was not found on PATH or in lspgate's tools folder. ${installHint}`,
        { server: "gopls" },
      );
    }
    const real = await realPath(found);
    return {
      // GOROOT, the module cache and gopls's own caches, read-only; the user's GOFLAGS.
      ...withSetup([found], await goSetup(goroot, real)),
      installDir: dirname(real),
      note: `Go toolchain ${goroot}`,
    };
  },
};

/** A command with what go_env.ts found; gopls reads its settings from both channels. */
function withSetup(command: string[], setup: GoSetup): ServerCommand {
  const { settings, ...rest } = setup;
  return {
    command,
    ...rest,
    ...(settings ? { initializationOptions: settings, settings: { gopls: settings } } : {}),
  };
}
