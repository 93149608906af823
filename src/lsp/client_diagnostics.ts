// A client's diagnostics: the ledger of what the server has been told (to know which push speaks
// for the current text), the pushes and pulls it answered with, and the wait for a current set.
import type * as proto from "vscode-languageserver-protocol";
import { LspGateError } from "../errors.ts";
import { CLIENT_CAPABILITIES } from "./capabilities.ts";
import type { DocumentStore } from "./documents.ts";
import { askDiagnosticsHook } from "./ask_diagnostics_hook.ts";
import type { ProgressTracker } from "./progress_tracker.ts";
import type { ProjectHealth } from "./project_health.ts";
import type { Waiters } from "./waiters.ts";
import { delay, pushKey } from "./client_util.ts";
import type { ClientOptions, PushedDiagnostics, RawDiagnostics, Told } from "./client_types.ts";

const DIAGNOSTICS_QUIET_MS = 200;
const EMPTY_PUSH_WAIT_MS = 500;

/** How long a wait may take, and what cancels it. */
export interface Wait {
  timeoutMs: number;
  signal?: AbortSignal;
}

/** What the diagnostics need of their client (LspClient is one). */
export interface DiagnosticsHost {
  readonly options: ClientOptions;
  readonly documents: DocumentStore;
  readonly capabilities: proto.ServerCapabilities;
  readonly pullsDiagnostics: boolean;
  request<R>(
    method: string,
    params: unknown,
    options: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<R>;
  notify(method: string, params: unknown): Promise<void>;
}

/** The parts of the client the diagnostics read and wait on. */
export interface DiagnosticsDeps {
  progress: ProgressTracker;
  health: ProjectHealth;
  waiters: Waiters;
  /** The SERVER_EXITED error once the server has ended, else undefined. */
  gone(): LspGateError | undefined;
}

/** Diagnostics of the documents open in one server, and which of its pushes are current. */
export class ClientDiagnostics {
  readonly #host: DiagnosticsHost;
  readonly #deps: DiagnosticsDeps;
  #pushed = new Map<string, PushedDiagnostics>();
  #pulled = new Map<string, { resultId?: string; items: proto.Diagnostic[] }>();
  /** Document and file notifications sent so far (didOpen, didChange, didClose, didChangeWatchedFiles). */
  #told = 0;
  /**
   * The change generation: `#told` as of the latest change to text the server already knew (a
   * didChange, a didChangeWatchedFiles). A push speaks for the state after a change only if it
   * arrived later. A didOpen or didClose is no change: lspgate opens files with their disk text.
   */
  #generation = 0;
  #crossFile?: RegExp;
  /** Per open document, its own latest didOpen or didChange (told: Infinity while being sent). */
  #synced = new Map<string, Told>();
  /** Per open document, the text the server has, to send it again unchanged (see diagnostics). */
  #texts = new Map<string, string>();

  /** Diagnostics for `host`'s documents; `deps` are its progress, health, waits and exit. */
  constructor(host: DiagnosticsHost, deps: DiagnosticsDeps) {
    this.#host = host;
    this.#deps = deps;
  }

  /** When `uri` was last sent; Infinity while it is on its way (or was never sent). */
  #sentAt(uri: string): Told {
    return this.#synced.get(uri) ?? { told: Infinity, at: Infinity };
  }

  /** Notes that `text` is on its way for `uri`: nothing the server says meanwhile speaks for it. */
  sending(uri: string, text: string): void {
    this.#synced.set(uri, { told: Infinity, at: Infinity });
    this.#texts.set(uri, text);
  }

  /** Notes that the didOpen (`changed` false) or didChange (`changed` true) of `uri` was sent. */
  sent(uri: string, changed: boolean): void {
    const told = this.#tell();
    this.#synced.set(uri, told);
    if (changed && this.#affectsOthers(uri)) this.#generation = told.told;
  }

  /** Forgets a document being closed; `closed()` follows once its didClose is sent. */
  forget(uri: string): void {
    this.#pushed.delete(pushKey(uri));
    this.#synced.delete(uri);
    this.#texts.delete(uri);
  }

  /** Notes that a didClose was sent. */
  closed(): void {
    this.#tell();
  }

  /** Notes that a didChangeWatchedFiles for `uris` was sent. */
  filesChanged(uris: string[]): void {
    const told = this.#tell();
    if (uris.some((uri) => this.#affectsOthers(uri))) this.#generation = told.told;
  }

  /** Records a `publishDiagnostics`; false when its params name no document (it is ignored). */
  pushed(params: unknown): boolean {
    const p = params as proto.PublishDiagnosticsParams;
    if (typeof p?.uri !== "string") return false;
    this.#pushed.set(pushKey(p.uri), {
      version: typeof p.version === "number" ? p.version : undefined,
      items: Array.isArray(p.diagnostics) ? p.diagnostics : [],
      at: performance.now(),
      told: this.#told,
    });
    return true;
  }

  /** Whether a change of `uri` can change other documents' diagnostics (see crossFilePattern). */
  #affectsOthers(uri: string): boolean {
    const pattern = this.#host.options.crossFilePattern;
    if (pattern === undefined) return true;
    this.#crossFile ??= new RegExp(pattern);
    return this.#crossFile.test(pushKey(uri));
  }

  /** Counts one document or file notification as sent. */
  #tell(): Told {
    return { told: ++this.#told, at: performance.now() };
  }

  /**
   * Sends an open document again, unchanged, as its next version: the server checks it anew after
   * every change told before, and publishes for it.
   */
  async #resend(uri: string): Promise<void> {
    const text = this.#texts.get(uri);
    const doc = text === undefined ? undefined : this.#host.documents.touch(uri);
    if (!doc) return;
    this.#synced.set(uri, { told: Infinity, at: Infinity });
    if (this.#host.options.recheckByReopen) {
      await this.#host.notify("textDocument/didClose", { textDocument: { uri } });
      await this.#host.notify("textDocument/didOpen", {
        textDocument: { uri, languageId: doc.languageId, version: doc.version, text },
      });
    } else {
      await this.#host.notify("textDocument/didChange", {
        textDocument: { uri, version: doc.version },
        contentChanges: [{ text }],
      });
    }
    this.#synced.set(uri, this.#tell());
  }

  /**
   * Diagnostics of an open document for every change the server has been told of (its own and,
   * but for a linter, every other file's): pulled afresh where the server offers it, else asked
   * through the adapter's diagnostics hook, else the first push that arrived after the document
   * was last sent (matching its version, where the server sends one). A document last sent before
   * another file changed is sent again, unchanged, so the server checks it again now instead of at
   * a time of its choosing.
   */
  async diagnostics(uri: string, timeoutMs: number, signal?: AbortSignal): Promise<RawDiagnostics> {
    const host = this.#host;
    const { progress, waiters } = this.#deps;
    const key = pushKey(uri);
    const deadline = performance.now() + timeoutMs;
    let doc = host.documents.get(uri);
    if (!doc) throw new LspGateError("INTERNAL", `diagnostics asked for ${uri}, which is not open`);
    if (host.pullsDiagnostics) {
      try {
        // A pull sent after the change notifications is answered after them.
        return { status: "ok", items: await this.#pull(uri, timeoutMs, signal) };
      } catch (error) {
        if (!(error instanceof LspGateError) || error.code !== "LSP_ERROR") throw error;
        // A server that advertised pull but answers MethodNotFound still pushes.
      }
    }
    const asked = await askDiagnosticsHook({
      uri,
      options: host.options,
      serverCapabilities: host.capabilities,
      clientCapabilities: { ...CLIENT_CAPABILITIES, ...host.options.extraCapabilities },
      text: this.#texts.get(uri),
      request: <R>(method: string, params: unknown) =>
        host.request<R>(method, params, {
          timeoutMs: Math.max(1, deadline - performance.now()),
          signal,
        }),
    }, timeoutMs);
    if (asked) return asked;
    // typescript-language-server hears of files changed on disk from tsserver's own watcher, and
    // tsserver updates the open files' diagnostics 2.5 s later (delayEnsureProjectForOpenFiles);
    // a document sent again is checked at once, and its push (or silence) is about the new state.
    const stale = (this.#synced.get(uri)?.told ?? Infinity) < this.#generation;
    if (stale && !host.options.fileScopedDiagnostics) {
      await this.#resend(uri);
      doc = host.documents.get(uri) ?? doc;
    }
    const version = doc.version;
    // Read at each check: a request that finds the document still being sent (another request
    // opened it moments before) must count the pushes after that send, once it is recorded.
    const since = () => this.#sentAt(uri);
    const fresh = () => {
      const pushed = this.#pushed.get(key);
      if (!pushed || pushed.told < since().told) return undefined;
      return pushed.version === undefined || pushed.version === version ? pushed : undefined;
    };
    // A server silent on clean files: once it kept quiet this long after the document was sent,
    // with no work in progress, a clean last push (for an earlier text) still holds.
    const stillClean = host.options.stillCleanAfterMs;
    const cleanBefore = stillClean !== undefined && this.#pushed.get(key)?.items.length === 0;
    const quietUntil = () =>
      Math.max(since().at + (stillClean ?? 0), progress.endedAt + DIAGNOSTICS_QUIET_MS);
    // pyright registers pull diagnostics dynamically, shortly after `initialized`, and then
    // stops pushing: a registration arriving while we wait switches to pulling.
    const heard = () => fresh() !== undefined || host.pullsDiagnostics;
    let pushed: PushedDiagnostics | undefined;
    while (!(pushed = fresh()) && !host.pullsDiagnostics) {
      const now = performance.now();
      if (cleanBefore && now >= quietUntil() && progress.size === 0) {
        return { status: "ok", items: [] };
      }
      // Said as what happened: a crash or a cancel is not "not available yet".
      const gone = this.#deps.gone();
      if (gone) throw gone;
      if (signal?.aborted) throw new LspGateError("CANCELLED", "the request was cancelled");
      if (now >= deadline) {
        return {
          status: "timeout",
          items: [],
          reason: `diagnostics not available yet (timed out after ${timeoutMs} ms)`,
        };
      }
      // Wake for a push, at the end of the quiet window, or when the work in progress ends.
      const quietLeft = cleanBefore ? quietUntil() - now : Infinity;
      const working = cleanBefore && quietLeft <= 0;
      await waiters.waitFor(
        () => heard() || (working && progress.size === 0),
        Math.max(1, Math.min(deadline - now, quietLeft > 0 ? quietLeft : Infinity)),
        signal,
      );
    }
    if (!pushed) {
      const left = Math.max(1, deadline - performance.now());
      return { status: "ok", items: await this.#pull(uri, left, signal) };
    }
    // Some servers (biome, pyright in push mode) first push an empty set for a fresh version and
    // the real one moments later: an empty push is trusted once it has stood one quiet window
    // (an empty push of long ago, for a file asked again unchanged, is answered at once).
    const emptyLeft = pushed.at + EMPTY_PUSH_WAIT_MS - performance.now();
    if (pushed.version !== undefined && pushed.items.length === 0 && emptyLeft > 0) {
      const first = pushed;
      await waiters.waitFor(
        () => (this.#pushed.get(key)?.at ?? first.at) !== first.at,
        Math.min(emptyLeft, Math.max(1, deadline - performance.now())),
        signal,
      );
      pushed = fresh() ?? pushed;
    }
    if (pushed.version === undefined) {
      // No version to match: let a burst of pushes (syntax, then semantic) settle.
      while (performance.now() < deadline) {
        const seen = pushed.at;
        await delay(DIAGNOSTICS_QUIET_MS, signal);
        pushed = this.#pushed.get(key) ?? pushed;
        if (pushed.at === seen) break;
      }
    }
    return { status: "ok", items: pushed.items };
  }

  /**
   * Waits (at most `timeoutMs`) until the server has pushed, for the document as last sent, a set
   * holding each of `items` (same range and code): what it keeps of its own diagnostics is then
   * current. False on timeout. typescript-language-server answers code actions from its own
   * diagnostics, not the request's, while its check of a change is pending
   * (TypeScriptQuickFixProvider): asked right after an edit, it listed no quick fixes. A push
   * without a version that arrives after a change may still be of the text before it, hence the
   * items.
   */
  published(uri: string, items: proto.Diagnostic[], wait: Wait): Promise<boolean> {
    const { timeoutMs, signal } = wait;
    const doc = this.#host.documents.get(uri);
    if (!doc || items.length === 0 || this.#host.pullsDiagnostics) return Promise.resolve(true);
    const key = pushKey(uri);
    const place = (d: proto.Diagnostic) =>
      `${d.range.start.line}:${d.range.start.character}:${d.range.end.line}:` +
      `${d.range.end.character}:${d.code ?? ""}`;
    const wanted = items.map(place);
    const holds = () => {
      const pushed = this.#pushed.get(key);
      if (!pushed || pushed.told < this.#sentAt(uri).told) return false;
      if (pushed.version !== undefined && pushed.version !== doc.version) return false;
      const have = new Set(pushed.items.map(place));
      return wanted.every((w) => have.has(w));
    };
    return this.#deps.waiters.waitFor(holds, Math.max(1, timeoutMs), signal);
  }

  async #pull(uri: string, timeoutMs: number, signal?: AbortSignal) {
    const previous = this.#pulled.get(uri);
    const report = await this.#host.request<proto.DocumentDiagnosticReport>(
      "textDocument/diagnostic",
      { textDocument: { uri }, previousResultId: previous?.resultId },
      { timeoutMs, signal },
    );
    if (report?.kind === "unchanged" && previous) return previous.items;
    const items = (report as proto.FullDocumentDiagnosticReport)?.items ?? [];
    this.#pulled.set(uri, { resultId: report?.resultId, items });
    this.#deps.health.observe("textDocument/publishDiagnostics", { uri, diagnostics: items });
    return items;
  }
}
