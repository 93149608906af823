import { commandAdapter } from "../src/servers/command_adapter.ts";
import { refusingProjectCode } from "../src/servers/project_code.ts";

/** haskell-language-server (through its wrapper, which picks the build for the project's GHC). */
export const haskellAdapter = refusingProjectCode(
  commandAdapter({
    id: "haskell",
    tested: false,
    command: ["haskell-language-server-wrapper", "--lsp"],
    languages: { ".hs": "haskell", ".lhs": "lhaskell" },
    rootMarkers: ["hie.yaml", "cabal.project", "stack.yaml", "package.yaml"],
    installHint: "Install haskell-language-server with GHCup: `ghcup install hls`.",
    readiness: "progress",
  }),
  {
    files: /^(cabal\.project|stack\.yaml|package\.yaml|Setup\.hs|.+\.cabal)$/,
    what: "builds through cabal or stack (Setup.hs, Template Haskell)",
  },
);
