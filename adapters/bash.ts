import { commandAdapter } from "../src/servers/command_adapter.ts";

/**
 * bash-language-server: navigation from its tree-sitter parse, diagnostics from ShellCheck when
 * `shellcheck` is on PATH (it lints nothing without it). It asks for its settings with
 * `workspace/configuration` (section `bashIde`) after `initialized`.
 */
export const bashAdapter = commandAdapter({
  id: "bash",
  command: ["bash-language-server", "start"],
  languages: { ".sh": "shellscript", ".bash": "shellscript", ".command": "shellscript" },
  filenames: {
    ".bashrc": "shellscript",
    ".bash_profile": "shellscript",
    ".bash_aliases": "shellscript",
    ".profile": "shellscript",
  },
  // No project file marks a shell project: the workspace is the root.
  rootMarkers: [],
  // It parses the workspace's scripts in the background after `initialized` and says when it is
  // done only in a log line: until then references and workspace symbols miss other files.
  readiness: "progress",
  readyLogMessage: "BackgroundAnalysis: (Completed|stopped|failed|skipping)",
  // Its onInitialized awaits `workspace/configuration` and then analyses only the last document
  // opened meanwhile: two files asked at once left one without diagnostics (a 15 s timeout) and,
  // after a restart, a file's symbols empty (issue 17). Nothing is opened before it has asked.
  openAfterConfiguration: true,
  // It passes ShellCheck's columns on as they are: code points, not the UTF-16 it negotiates.
  diagnosticEncoding: "utf-32",
  // Its workspace symbols are the function and variable names tree-sitter finds in the scripts its
  // background analysis read (its glob, `**/*@(.sh|.inc|.bash|.command)`, leaving out node_modules,
  // .git and hidden entries), matched by fuzzy-search: the query's characters in order, case kept.
  symbolIndex: {
    extensions: [".sh", ".inc", ".bash", ".command"],
    skips: ["node_modules"],
    // A shell word: up to a blank or an operator character, a backslash escaping either.
    word: /(?:\\[\s\S]|[^\s;|&()<>])+/g,
  },
  installHint: "Install bash-language-server: `npm install -g bash-language-server`, and " +
    "ShellCheck for its diagnostics (`apt-get install shellcheck`).",
  settings: {
    bashIde: {
      // Explainshell is a web service; lspgate's servers have no network.
      explainshellEndpoint: "",
      // Symbols of every script, not only sourced ones: what workspace symbols promise.
      includeAllWorkspaceSymbols: true,
      shellcheckPath: "shellcheck",
      // "info": the background analysis' end is logged at that level.
      logLevel: "info",
    },
  },
});
