import { dirname, join } from "node:path";
import type { Adapter, ServerCommand } from "../src/servers/adapter.ts";
import { findBinary, findPackage, readPackage, realPath } from "../src/servers/find_binary.ts";
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
  "which it cannot use), or add TypeScript 7 to the project (`npm install -D typescript@7`) " +
  "for its own `tsc --lsp` server.";

function major(version: string): number {
  return Number.parseInt(version.split(".")[0], 10);
}

/**
 * TypeScript: TypeScript 7's own `tsc --lsp --stdio` when the project's TypeScript is 7.x, else
 * typescript-language-server over the project's TypeScript 5/6 or one installed beside it.
 */
export const typescriptAdapter: Adapter = {
  id: "typescript",
  languages,
  rootMarkers: ["tsconfig.json", "jsconfig.json", "package.json"],
  priority: 10,
  installHint,
  // typescript-language-server answers from a syntax-only server until the project is loaded.
  readiness: "progress",
  // It publishes nothing when a changed file's diagnostics stay empty (FileDiagnostics.update).
  stillCleanAfterMs: 1500,
  settings: {
    formattingOptions: { tabSize: 2, insertSpaces: true },
  },
  async resolve({ root, workspace, configuredCommand }): Promise<ServerCommand> {
    if (configuredCommand) return { command: configuredCommand };
    const project = await findPackage("typescript", root, workspace);
    if (project && major(project.version) >= 7) {
      const tsc = join(project.dir, "..", ".bin", "tsc");
      return {
        command: [tsc, "--lsp", "--stdio"],
        installDir: project.dir,
        note: `TypeScript ${project.version} (native) from the project`,
      };
    }
    const server = await findBinary("typescript-language-server", { root, workspace });
    if (!server) {
      throw new LspGateError(
        "SERVER_NOT_INSTALLED",
        `typescript-language-server was not found in node_modules/.bin or on PATH. ${installHint}`,
        { server: "typescript" },
      );
    }
    // <prefix>/node_modules/typescript-language-server/lib/cli.mjs → <prefix>/node_modules
    const serverPackage = dirname(dirname(await realPath(server)));
    let typescript = project;
    if (!typescript || major(typescript.version) >= 7) {
      const beside = await readPackage(join(dirname(serverPackage), "typescript"));
      const nested = await readPackage(join(serverPackage, "node_modules", "typescript"));
      typescript = [beside, nested].find((p) => p && major(p.version) < 7);
    }
    if (!typescript) {
      throw new LspGateError(
        "SERVER_NOT_INSTALLED",
        `typescript-language-server needs TypeScript 5 or 6, and none was found ` +
          `(project: ${project ? project.version : "none"}). ${installHint}`,
        { server: "typescript" },
      );
    }
    return {
      command: [server, "--stdio"],
      installDir: dirname(serverPackage),
      initializationOptions: {
        tsserver: { path: join(typescript.dir, "lib", "tsserver.js") },
        preferences: { includeCompletionsForModuleExports: false },
      },
      note: `typescript-language-server with TypeScript ${typescript.version}` +
        (typescript === project ? " from the project" : ""),
    };
  },
};
