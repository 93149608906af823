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
  /** Files whose folder is a project root, nearest first wins. */
  rootMarkers: string[];
  /**
   * Among adapters for the same file whose markers are equally near, the higher wins; it also
   * picks the fallback when no adapter's marker is found.
   */
  priority: number;
  /** Finds the server binary; throws SERVER_NOT_INSTALLED (with `installHint`) when it is missing. */
  resolve(context: AdapterContext): Promise<ServerCommand>;
  /** How to install the server, for the SERVER_NOT_INSTALLED message. */
  installHint: string;
  initializationOptions?: unknown;
  /** Answers to `workspace/configuration`, by section. */
  settings?: Record<string, unknown>;
  /** Environment for the server process, added to a minimal inherited one. */
  env?: Record<string, string>;
  /** See ClientOptions.readiness. */
  readiness: "immediate" | "progress";
  /** See ClientOptions.stillCleanAfterMs: for servers silent when a file stays clean. */
  stillCleanAfterMs?: number;
  /** See ClientOptions.indexProgressToken: the progress whose end means the index is built. */
  indexProgressToken?: string;
  /** See ClientOptions.extraCapabilities: client capabilities outside the standard (clangd's). */
  extraCapabilities?: Record<string, unknown>;
}
