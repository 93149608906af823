/**
 * Whether a server said it could not load its project, and why, from what it tells its client:
 * rust-analyzer's `experimental/serverStatus` with health "error" or "warning" and a message (a
 * failed `cargo metadata`), a `window/showMessage` of type Error about loading, errors a server
 * reports on a project manifest (gopls's failed `go list` on go.mod: a module it cannot find).
 *
 * Rationale (issue 15): a project that failed to load answered "No definition found" with
 * `partial: false` — silently wrong. Answers about such a project carry `partial: true` and this
 * reason instead, and `status` shows it.
 *
 * @module
 */

/** LSP's MessageType.Error, and DiagnosticSeverity.Error. */
const ERROR = 1;

/**
 * Project manifests whose error diagnostics say the project did not load: gopls reports a failed
 * `go list` (a module it cannot find, a bad go.mod) on go.mod / go.work.
 */
const MANIFEST = /\/(go\.mod|go\.work)$/;

/** Longest reason kept: the first lines of a server's message say what failed. */
const MAX_REASON = 600;

/**
 * Diagnostic codes that say an import could not be resolved, so answers about that file (what
 * it uses from there) are partial: gopls (a module missing from the cache, a failed `go list`),
 * pyright and basedpyright (a missing environment or package), clangd (a header not found: no
 * compile commands), TypeScript (2307).
 */
const BROKEN_IMPORT = new Set([
  "BrokenImport",
  "reportMissingImports",
  "pp_file_not_found",
  "2307",
]);

/** Most files whose broken imports are kept (the first ones). */
const MAX_FILES = 20;

/** What a server said about loading its project. */
export class ProjectHealth {
  #status?: string;
  #shown?: string;
  /** Per manifest URI, its first error. */
  readonly #manifests = new Map<string, string>();
  /** Per file URI, its first unresolved import. */
  readonly #imports = new Map<string, string>();

  /** Hears one notification from the server. */
  observe(method: string, params: unknown): void {
    const p = params as { health?: unknown; message?: unknown; type?: unknown } | undefined;
    if (method === "experimental/serverStatus") {
      // rust-analyzer: health is "ok" | "warning" | "error"; each status replaces the last.
      const failed = p?.health === "error" ||
        (p?.health === "warning" && !sysrootOnly(p?.message));
      this.#status = failed ? reason(p?.message) ?? `health ${p?.health}` : undefined;
    } else if (method === "window/showMessage" && p?.type === ERROR && aboutLoading(p.message)) {
      this.#shown = reason(p.message) ?? this.#shown;
    } else if (method === "textDocument/publishDiagnostics") {
      this.#manifest(params as { uri?: unknown; diagnostics?: unknown });
    }
  }

  #manifest(params: { uri?: unknown; diagnostics?: unknown }): void {
    const uri = params?.uri;
    if (typeof uri !== "string") return;
    const items = Array.isArray(params.diagnostics) ? params.diagnostics : [];
    const broken = items.find((d) =>
      (d?.severity === ERROR || d?.severity === 2) && BROKEN_IMPORT.has(String(d.code))
    );
    if (broken && (this.#imports.has(uri) || this.#imports.size < MAX_FILES)) {
      this.#imports.set(uri, reason(broken.message) ?? "an import could not be resolved");
    } else if (!broken) this.#imports.delete(uri);
    if (!MANIFEST.test(uri)) return;
    const error = items.find((d) => d?.severity === ERROR && typeof d.message === "string");
    const file = decodeURIComponent(uri.slice(uri.lastIndexOf("/") + 1));
    if (error) this.#manifests.set(uri, `${file}: ${reason(error.message)}`);
    else this.#manifests.delete(uri);
  }

  /** Per file URI (at most {@link MAX_FILES}), an import the server could not resolve there. */
  get brokenImports(): Record<string, string> | undefined {
    return this.#imports.size ? Object.fromEntries(this.#imports) : undefined;
  }

  /** Why the project is not (wholly) loaded, in the server's words; undefined when it is. */
  get problem(): string | undefined {
    return this.#status ?? this.#shown ?? this.#manifests.values().next().value;
  }
}

/**
 * rust-analyzer warns "Failed to read Cargo metadata with dependencies for sysroot of …" whenever
 * `cargo metadata --offline` cannot resolve the standard library's own dev-dependencies, sandboxed
 * or not; it then loads the standard library without them, so the project is whole.
 */
function sysrootOnly(message: unknown): boolean {
  if (typeof message !== "string") return false;
  const failures = message.match(/Failed to [^\n]*/g) ?? [];
  return failures.length > 0 && failures.every((line) => / for sysroot /.test(line));
}

/**
 * Whether an error a server shows is about loading the project ("Error loading workspace", a
 * failed `cargo metadata`), not about itself: rust-analyzer shows "overly long loop turn took …"
 * as an error where its build has debug assertions.
 */
function aboutLoading(message: unknown): boolean {
  if (typeof message !== "string" || /overly long loop turn/.test(message)) return false;
  return /load|workspace|metadata|go list|package|project|module|cargo|environment|interpreter/i
    .test(message);
}

function reason(message: unknown): string | undefined {
  if (typeof message !== "string" || !message.trim()) return undefined;
  const text = message.trim().replace(/\s*\n\s*/g, " | ");
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}…` : text;
}
