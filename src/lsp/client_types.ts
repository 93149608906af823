// The client's types: how to start and talk to one language server, what it answers of
// diagnostics and of itself, and the bookkeeping of pushes.
import type * as proto from "vscode-languageserver-protocol";
import type { PositionEncoding } from "./positions.ts";
import type { ProcessSpec } from "./process.ts";

/** How to start and talk to one language server. */
export interface ClientOptions {
  /** Adapter id, used in messages ("pyright"). */
  serverName: string;
  /**
   * lspgate's platform (Deno's names) and the variables of its environment the adapter's hooks
   * read (Adapter.hostEnv), for code that runs in the client, which reads no environment itself.
   */
  host?: { os: string; arch: string; env: Record<string, string> };
  /**
   * Its positions count lines as ECMAScript does (typescript-language-server's are tsserver's):
   * they are converted (TSSERVER_UTF16). Not TypeScript 7's own server, whose lines are LSP's.
   */
  ecmaLines?: boolean;
  /**
   * It drops a file's BOM when it reads the file from disk (both TypeScript servers): files are
   * opened in it without one, and its positions put it back (WithoutBom, TSSERVER_UTF16).
   */
  dropsBom?: boolean;
  /** The data limit the server runs under (servers.<id>.memoryCapMiB), said when it ends badly. */
  memoryCapMiB?: number;
  /** Absolute, real path of the project root this server serves. */
  root: string;
  rootUri: string;
  process: ProcessSpec;
  installHint: string;
  initializationOptions?: unknown;
  /** Answers to `workspace/configuration`, keyed by section (dotted sections are looked up inside). */
  settings?: Record<string, unknown>;
  requestTimeoutMs: number;
  startTimeoutMs: number;
  /** Send `processId: null`, needed when the server runs in its own PID namespace. */
  hideProcessId?: boolean;
  /**
   * How to tell the server has loaded the project: "immediate" (answers are right at once), or
   * "progress" (wait, after the first open, until its work-done progress has begun and ended or
   * it has published diagnostics).
   */
  readiness?: "immediate" | "progress";
  /**
   * What readiness gates: "all" queries (the default), or only "workspace" ones (references,
   * workspace symbols, renames, call and type hierarchies) for a server that answers about one
   * file and what it imports at once but searches other files only once it has listed them
   * (pyright).
   */
  readinessScope?: "all" | "workspace";
  /**
   * The server publishes nothing when a file's diagnostics stay empty
   * (typescript-language-server's FileDiagnostics.update): after the file was last sent, a silence
   * this long with no work in progress means "still clean".
   */
  stillCleanAfterMs?: number;
  /**
   * A hook in adapters/hooks.ts, by name, that asks the server for a document's diagnostics
   * instead of awaiting its push (typescript-language-server's pushes come late, without
   * versions, and not at all for a file that stays clean). Where it cannot answer, the push is
   * awaited as for any server.
   */
  diagnosticsHook?: string;
  /**
   * A file's diagnostics depend on that file alone (a linter such as biome): a change to another
   * file never makes its last push stale.
   */
  fileScopedDiagnostics?: boolean;
  /**
   * A pattern for the paths whose changes can change another document's diagnostics, where not
   * every file's can (clangd: a translation unit depends on the headers it includes and its
   * compile flags, never on another source file). Undefined: any file's change can.
   */
  crossFilePattern?: string;
  /**
   * A pattern (regular expression source) of an error message after which the server answers
   * nothing right again: a fault of its own that leaves it broken until it restarts (pyright's
   * "this._token.cancel is not a function": a helper saw every later references fail so). The
   * server is stopped, and its next question starts it again.
   */
  wedgedBy?: string;
  /**
   * A pattern of a log line (`window/logMessage`) that says the same: typescript-language-server
   * stays up when its tsserver dies, and answers "nothing" to everything from then on (a helper's
   * find, after an OOM kill of tsserver).
   */
  wedgedByLog?: string;
  /**
   * With "progress" readiness: the work-done progress token whose end means the server's index is
   * built (clangd's "backgroundIndexProgress"; until then it answers from headers and the open
   * file alone). Readiness then waits for that work to begin (it may start a moment after the
   * first open) and end, whatever else the server publishes meanwhile.
   */
  indexProgressToken?: string;
  /**
   * Most requests sent to the server and unanswered at once (more wait in lspgate). For a server
   * that reads no further message while its request slots are full: tower-lsp's (deno lsp), which
   * asks `workspace/configuration` after `initialized` and waits for the answer, deadlocked behind
   * a burst of requests written before that answer (load_test, 200 at once: 185 timed out).
   */
  maxRequestsInFlight?: number;
  /** Client capabilities outside the standard, merged into `initialize` (clangd's `offsetEncoding`). */
  extraCapabilities?: Record<string, unknown>;
  /**
   * With "progress" readiness: a notification whose params say `quiescent: true` once the server
   * has loaded and indexed the workspace (rust-analyzer's `experimental/serverStatus`; its work
   * comes in several progress phases with gaps between). Readiness then waits for it.
   */
  quiescentNotification?: string;
  /**
   * Open no document before the server's first `workspace/configuration` is answered (bounded):
   * bash-language-server analyses only the last document opened before it has its settings.
   */
  openAfterConfiguration?: boolean;
  /**
   * With "progress" readiness: a pattern for the log message (`window/logMessage`) in which the
   * server says it has loaded the workspace, for servers that report it no other way
   * (bash-language-server's "BackgroundAnalysis: Completed"). Readiness then waits for it.
   */
  readyLogMessage?: string;
  /**
   * Check a document again after another file changed by closing and opening it, not by sending
   * its unchanged text: clangd publishes nothing for a didChange with identical text.
   */
  recheckByReopen?: boolean;
}

/** A pushed or pulled diagnostics set, raw from the server. */
export interface RawDiagnostics {
  /** unchecked: the server does not check the document (a hook said so; reason says why). */
  status: "ok" | "timeout" | "unchecked";
  items: proto.Diagnostic[];
  /** Why status is not ok, in words. */
  reason?: string;
}

/** What the manager and `status` want to know about a client. */
export interface ClientInfo {
  serverName: string;
  pid: number;
  root: string;
  encoding: PositionEncoding;
  startedAt: number;
  openDocuments: number;
  indexing: string[];
  serverVersion?: string;
  stderr: string[];
  /** Why the server could not load its project, in its words (see project_health.ts). */
  projectProblem?: string;
  /** Per file URI, an import the server could not resolve there (see project_health.ts). */
  brokenImports?: Record<string, string>;
}

export interface PushedDiagnostics {
  version?: number;
  items: proto.Diagnostic[];
  at: number;
  /** How many document and file notifications had been sent when it arrived (see #told). */
  told: number;
}

/** A point in the sequence of notifications sent: their count then, and the time. */
export interface Told {
  told: number;
  at: number;
}
