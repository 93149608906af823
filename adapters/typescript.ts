import { dirname, join } from "../src/posix_path.ts";
import type { Adapter, ServerCommand } from "../src/servers/adapter.ts";
import {
  findBinary,
  findPackage,
  readPackage,
  realPath,
  searchFolders,
} from "../src/servers/find_binary.ts";
import { LspGateError } from "../src/errors.ts";

const languages = {
  ".ts": "typescript",
  ".tsx": "typescriptreact",
  ".mts": "typescript",
  ".cts": "typescript",
  ".js": "javascript",
  ".jsx": "javascriptreact",
  ".mjs": "javascript",
  ".cjs": "javascript",
};

const installHint = "Install typescript-language-server with TypeScript 5 or 6: " +
  "`npm install -g typescript-language-server typescript@5` (npm's typescript@latest is 7.x, " +
  "which it cannot use), or install TypeScript 7 (`npm install -g typescript@7`, or into a " +
  "folder on PATH) for its own `tsc --lsp` server. A project's own TypeScript is used only " +
  "for a trusted root.";

function major(version: string): number {
  return Number.parseInt(version.split(".")[0], 10);
}

/** Keys of a package.json that make its folder a package (see rootMarkerContains). */
const PACKAGE_KEYS = [
  "name",
  "private",
  "workspaces",
  "dependencies",
  "devDependencies",
  "peerDependencies",
  "scripts",
];

/**
 * TypeScript: typescript-language-server over the TypeScript 5/6 installed beside it, or
 * TypeScript 7's own `tsc --lsp --stdio` where the user installed TypeScript 7 (preferred when the
 * project uses 7.x, or when typescript-language-server is missing). The project's own TypeScript
 * (tsserver is code) runs only for a trusted root.
 */
export const typescriptAdapter: Adapter = {
  id: "typescript",
  languages,
  rootMarkers: ["tsconfig.json", "jsconfig.json", "package.json"],
  // A package.json that names no package, dependencies, scripts or workspaces is none: the shims a
  // published package puts in each subpath folder (`{"sideEffects": false}` in date-fns's,
  // `{"main": "./index.cjs"}` in zod's v3/) each made their folder a project of its own, whose
  // uses of the rest no question about the rest searched.
  rootMarkerContains: {
    "package.json": PACKAGE_KEYS.map((key) => `"${key}"`),
  },
  priority: 10,
  installHint,
  // tsserver counts U+2028 and U+2029 as line breaks (TypeScript 7's server counts lines as LSP
  // does: its commands say lspLines); both drop a BOM they read from disk.
  ecmaLineBreaks: true,
  dropsBom: true,
  // Its tsserver gone (killed, out of memory), it stays up and answers nothing for good.
  wedgedByLog: "\\[tsserver\\] Exited",
  // typescript-language-server answers from a syntax-only server until the project is loaded.
  readiness: "progress",
  // It pushes diagnostics without versions, 300–800 ms after a change, and nothing when a file
  // stays clean: they are asked of tsserver instead (adapters/typescript_diagnostics.ts).
  diagnosticsHook: "tsserver",
  // Where that cannot answer, the push is awaited, and a silence this long means still clean
  // (FileDiagnostics.update publishes nothing when a file's diagnostics stay empty).
  stillCleanAfterMs: 1500,
  // It takes no didChangeWatchedFiles (without useClientFileWatcher, which lspgate's watcher
  // cannot serve: it leaves node_modules out): tsserver's own watcher hears of an edit a moment
  // later. A file edited while not open is opened instead, so the next query sees the edit.
  openChangedFiles: true,
  settings: {
    formattingOptions: { tabSize: 2, insertSpaces: true },
  },
  async resolve(context): Promise<ServerCommand> {
    const { root, workspace, configuredCommand, trusted } = context;
    if (configuredCommand) return { command: configuredCommand };
    // Reading the project's TypeScript version runs nothing; only a trusted root's is run.
    const project = await findPackage("typescript", root, workspace);
    if (project && major(project.version) >= 7) {
      if (trusted) {
        return {
          command: [join(project.dir, "..", ".bin", "tsc"), "--lsp", "--stdio"],
          // The native binary is a sibling package (@typescript/typescript-<platform>).
          installDir: dirname(project.dir),
          note: `TypeScript ${project.version} (native) from the project (trusted root)`,
          fromWorkspace: true,
          lspLines: true,
        };
      }
      const native = await userNativeTsc(context);
      if (native) {
        return {
          ...native,
          note: `${native.note}; the project's own TypeScript ${project.version} is not run ` +
            `(root not trusted)`,
        };
      }
    }
    const server = await findBinary("typescript-language-server", { root, workspace, trusted });
    if (!server) {
      const native = await userNativeTsc(context);
      if (native) return native;
      throw new LspGateError(
        "SERVER_NOT_INSTALLED",
        `typescript-language-server was not found on PATH or in lspgate's tools folder. ${installHint}`,
        { server: "typescript" },
      );
    }
    const fromWorkspace = isWithin(server, workspace);
    // <prefix>/node_modules/typescript-language-server/lib/cli.mjs → <prefix>/node_modules
    const serverPackage = dirname(dirname(await realPath(server)));
    // tsserver is code: the project's own runs only for a trusted root.
    let typescript = trusted && project && major(project.version) < 7 ? project : undefined;
    if (!typescript) {
      const beside = await readPackage(join(dirname(serverPackage), "typescript"));
      const nested = await readPackage(join(serverPackage, "node_modules", "typescript"));
      typescript = [beside, nested].find((p) => p && major(p.version) < 7);
    }
    if (!typescript) {
      throw new LspGateError(
        "SERVER_NOT_INSTALLED",
        `typescript-language-server needs TypeScript 5 or 6 installed beside it, and none was ` +
          `found. ${installHint}`,
        { server: "typescript" },
      );
    }
    const fromProject = typescript === project;
    const untrustedNote = project && !fromProject && !trusted
      ? `; the project's own TypeScript ${project.version} is not run (root not trusted)`
      : "";
    return {
      command: [server, "--stdio"],
      installDir: dirname(serverPackage),
      // tsserver loads tsconfig plugins only from its own install folder unless
      // allowLocalPluginLoads is set, which lspgate never does: a workspace's plugins do not run.
      initializationOptions: {
        tsserver: { path: join(typescript.dir, "lib", "tsserver.js") },
        preferences: { includeCompletionsForModuleExports: false },
        // Automatic type acquisition runs npm for the packages a repository's package.json names:
        // a repository chooses nothing that runs, and a sandboxed server has no network anyway.
        disableAutomaticTypingAcquisition: true,
      },
      note: `typescript-language-server with TypeScript ${typescript.version}` +
        (fromProject ? " from the project (trusted root)" : "") + untrustedNote,
      fromWorkspace: fromWorkspace || fromProject,
    };
  },
};

/**
 * A TypeScript 7 `tsc` (its own `--lsp` server) the user installed: the first 7.x `tsc` on PATH
 * or in lspgate's tools folders (an older global `tsc` earlier on PATH is passed over).
 */
async function userNativeTsc({ workspace }: { workspace: string }): Promise<
  ServerCommand | undefined
> {
  for (const folder of searchFolders(workspace)) {
    const tsc = join(folder, "tsc");
    // <prefix>/node_modules/typescript/bin/tsc → <prefix>/node_modules/typescript
    const pkg = await readPackage(dirname(dirname(await realPath(tsc))));
    if (!pkg || major(pkg.version) < 7) continue;
    return {
      command: [tsc, "--lsp", "--stdio"],
      // The native binary is a sibling package (@typescript/typescript-<platform>).
      installDir: dirname(pkg.dir),
      note: `TypeScript ${pkg.version} (native), installed by the user`,
      lspLines: true,
    };
  }
  return undefined;
}

function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder + "/");
}
