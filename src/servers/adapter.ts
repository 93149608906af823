/** Where and how an adapter's server binary was found. */
export interface ServerCommand {
  /** argv to spawn. */
  command: string[];
  /** Folder the server is installed in (read-only in the sandbox, `--allow-read` in Deno's flags). */
  installDir?: string;
  /** Initialization options that depend on what was found (e.g. the tsserver path). */
  initializationOptions?: unknown;
  /** Extra words for `status`, e.g. "TypeScript 5.9.3 from the project". */
  note?: string;
  /** Settings answered to `workspace/configuration` on top of the adapter's (e.g. the interpreter). */
  settings?: Record<string, unknown>;
  /**
   * The program comes from the workspace (a trusted root's own): its stderr is not shown, since
   * the repository wrote what it prints.
   */
  fromWorkspace?: boolean;
  /**
   * Host paths the server reads besides its install folder, bound read-only in the sandbox (and
   * `--allow-read` in Deno's flags): a toolchain (GOROOT), a module cache.
   */
  readOnlyPaths?: string[];
  /** Environment for the server that depends on what was found (e.g. GOMODCACHE), over the adapter's. */
  env?: Record<string, string>;
  /**
   * This server counts lines as LSP does where its adapter's `ecmaLineBreaks` says the other does
   * not (TypeScript 7's own `tsc --lsp`: measured right in a file with U+2028).
   */
  lspLines?: boolean;
}

/** What an adapter needs to know to find its server. */
export interface AdapterContext {
  /** Real path of the project root the server will serve. */
  root: string;
  /** Real path of the workspace root (the boundary). */
  workspace: string;
  /** A binary path configured by the user, if any. */
  configuredCommand?: string[];
  /**
   * The user marked this root trusted and its servers run sandboxed: the project's own programs
   * (node_modules/.bin, its TypeScript, its Python environment) may be used. Otherwise never.
   */
  trusted: boolean;
}

/** One language server, described as data; hooks only where a server needs them. */
export interface Adapter {
  /** Stable id, used in config and output ("pyright"). */
  id: string;
  /**
   * "linter": a server that adds diagnostics beside a file's language server (merged into the
   * diagnostics answer; navigation stays with the language server). It applies only where its
   * marker (its config file) is found. Default: a language server.
   */
  kind?: "language" | "linter";
  /** File extensions (with the dot) and the language id each one has. */
  languages: Record<string, string>;
  /** Whole file names (e.g. `Dockerfile`) and their language id, for files an extension misses. */
  filenames?: Record<string, string>;
  /**
   * False for an adapter written from its server's documentation and never run against the real
   * server here (and for servers added in the user's config); `servers` says so. Default: tested.
   */
  tested?: boolean;
  /** Where the adapter comes from: shipped with lspgate (default), or added in the user's config. */
  origin?: "lspgate" | "config";
  /**
   * Chosen over the other language servers of the same files, wherever it applies (set by the
   * user's config, e.g. basedpyright over pyright; a server added in config for a known type).
   */
  preferred?: boolean;
  /**
   * Among tied language servers of the same files, one whose binary is missing yields to one whose
   * binary is found (e.g. pyright to basedpyright). Cheap: a PATH lookup, no process is run.
   */
  installed?(context: { workspace: string }): Promise<boolean>;
  /** Files whose folder is a project root, nearest first wins. */
  rootMarkers: string[];
  /**
   * Files whose folder is the root of every project below it (gopls' `go.work`): found at or
   * above a file's nearest project root, the nearest such folder is the root instead.
   */
  workspaceMarkers?: string[];
  /**
   * A marker that counts only when it holds this text (or one of these), e.g. `pyproject.toml`
   * with `[tool.ruff` (a linter applies only where the project configures it).
   */
  rootMarkerContains?: Record<string, string | readonly string[]>;
  /**
   * Among adapters for the same file whose markers are equally near, the higher wins; it also
   * picks the fallback when no adapter's marker is found.
   */
  priority: number;
  /** Finds the server binary; throws SERVER_NOT_INSTALLED (with `installHint`) when it is missing. */
  resolve(context: AdapterContext): Promise<ServerCommand>;
  /**
   * For a root not trusted: why `file` must not be asked of this server (repository code the
   * server would run for it, which the check in `resolve` could not see); undefined to ask it.
   */
  refuseFile?(context: { workspace: string; file: string }): Promise<string | undefined>;
  /** How to install the server, for the SERVER_NOT_INSTALLED message. */
  installHint: string;
  initializationOptions?: unknown;
  /** Answers to `workspace/configuration`, by section. */
  settings?: Record<string, unknown>;
  /**
   * Of `settings` and `initializationOptions`, what a workspace's `.lspgate.jsonc` may not change
   * (layered over it): what keeps the server off the network or from running code on a
   * repository's say. The user's own config still may.
   */
  locked?: { settings?: Record<string, unknown>; initializationOptions?: Record<string, unknown> };
  /** Environment for the server process, added to a minimal inherited one. */
  env?: Record<string, string>;
  /**
   * The encoding of the columns in this server's diagnostics, where it differs from the one it
   * negotiated (a server quirk, e.g. bash-language-server passing ShellCheck's code points on).
   */
  diagnosticEncoding?: "utf-8" | "utf-16" | "utf-32";
  /**
   * False for servers of configuration data (JSON, YAML): their files are checked when named or
   * globbed, but not by a workspace-wide `diagnostics "*"` or symbol search, which are for code.
   * Default true.
   */
  workspaceDiagnostics?: boolean;
  /** See ClientOptions.readyLogMessage: the log line that says the workspace is loaded. */
  readyLogMessage?: string;
  /**
   * The server counts lines as ECMAScript does (U+2028 and U+2029 end one too), unless the command
   * it resolved says `lspLines`: see ClientOptions.ecmaLines.
   */
  ecmaLineBreaks?: boolean;
  /** See ClientOptions.dropsBom. */
  dropsBom?: boolean;
  /** The variables of lspgate's environment its hooks read (ClientOptions.host). */
  hostEnv?: string[];
  /** See ClientOptions.wedgedBy: an error after which the server answers nothing right again. */
  wedgedBy?: string;
  /** See ClientOptions.wedgedByLog: a log line that says so. */
  wedgedByLog?: string;
  /**
   * The server ignores `workspace/didChangeWatchedFiles` and learns of files changed on disk from
   * its own watcher, a moment later (typescript-language-server without useClientFileWatcher): a
   * few files of its languages that change while not open are opened in it instead, so a query
   * that follows the change is answered for it.
   */
  openChangedFiles?: boolean;
  /**
   * The server loads no package created on disk while it runs until one of its files is opened
   * (gopls): a few files of its languages created while it runs are opened in it, as
   * `openChangedFiles` opens changed ones.
   */
  openCreatedFiles?: boolean;
  /** See ClientOptions.crossFilePattern: the files whose changes can touch others' diagnostics. */
  crossFilePattern?: string;
  /** See ClientOptions.recheckByReopen: servers silent on a didChange with identical text. */
  recheckByReopen?: boolean;
  /** See ClientOptions.readiness. */
  readiness: "immediate" | "progress";
  /** See ClientOptions.readinessScope. */
  readinessScope?: "all" | "workspace";
  /** See ClientOptions.stillCleanAfterMs: for servers silent when a file stays clean. */
  stillCleanAfterMs?: number;
  /** See ClientOptions.diagnosticsHook: a hook in adapters/hooks.ts that asks for diagnostics. */
  diagnosticsHook?: string;
  /** See ClientOptions.indexProgressToken: the progress whose end means the index is built. */
  indexProgressToken?: string;
  /** See ClientOptions.maxRequestsInFlight: for a server that deadlocks under a burst. */
  maxRequestsInFlight?: number;
  /** See ClientOptions.extraCapabilities: client capabilities outside the standard (clangd's). */
  extraCapabilities?: Record<string, unknown>;
  /** See ClientOptions.quiescentNotification: rust-analyzer's status, for readiness. */
  quiescentNotification?: string;
  /** See ClientOptions.openAfterConfiguration: bash-language-server's opening race. */
  openAfterConfiguration?: boolean;
  /** A server's quirk: cleans a call or type hierarchy item's name and detail for reading. */
  hierarchyItem?(item: HierarchyItemText): HierarchyItemText;
  /** What its workspace symbol search can find: lets a search leave it unstarted (SymbolIndex). */
  symbolIndex?: SymbolIndex;
}

/**
 * The files a server indexes for `workspace/symbol` once started, for a server whose every answer
 * is a name spelled in one of them, within one word, and that matches a name at most when the name
 * holds the query's characters in order (case aside, or not): where no word of those files holds
 * them, a search leaves the server unstarted (src/actions/symbol_prefilter.ts). Dropped for a
 * server the user's or the workspace's config changes (its command or settings may index more).
 */
export interface SymbolIndex {
  /** Extensions of the files it indexes under its root (its own list, e.g. bash's `.inc`). */
  extensions: string[];
  /** Folders it never indexes besides hidden ones; lspgate reads its other skipped folders too. */
  skips: string[];
  /** Files at its root that can widen what it indexes (its project config): there, it is asked. */
  configs?: string[];
  /** One word of a file's text (global): a name is all or part of one. */
  word: RegExp;
}

/** What hierarchyItem() reads and returns: an item's name, its detail, and its file's URI. */
export interface HierarchyItemText {
  name: string;
  detail?: string;
  uri: string;
}
