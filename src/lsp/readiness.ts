// When a server has loaded its project (ClientOptions.readiness): what it says that shows it
// (progress, a push, a log line, a quiescent status), and the wait for it.
import type { ClientOptions } from "./client_types.ts";
import type { ProgressTracker } from "./progress_tracker.ts";
import type { Waiters } from "./waiters.ts";

/** How long after the first open an index (indexProgressToken) may take to begin. */
const INDEX_START_GRACE_MS = 2000;

/** Follows a server's loading of the project from its notifications, and waits for it. */
export class Readiness {
  /** performance.now() at the first didOpen: the server begins loading the project then. */
  #firstOpenAt?: number;
  #settled = false;
  /** The server's last `quiescentNotification` said it was quiescent. */
  #quiescent = false;
  /** The server logged `readyLogMessage`. */
  #loggedReady = false;

  /** Reads the options' readiness settings; `progress` is fed by `observe()`. */
  constructor(
    readonly options: ClientOptions,
    readonly progress: ProgressTracker,
    readonly waiters: Waiters,
  ) {}

  /** Notes a didOpen: the first one is when loading begins. */
  opened(): void {
    this.#firstOpenAt ??= performance.now();
  }

  /** Takes in a notification from the server (a push with a document, a log line, progress). */
  observe(method: string, params: unknown): void {
    if (method === "textDocument/publishDiagnostics") {
      // A push says the open file was analysed; where an index is followed (clangd) it says
      // nothing of the index, which may still be running (incoming calls then come back empty).
      if (this.#firstOpenAt !== undefined && this.options.indexProgressToken === undefined) {
        this.#settled = true;
      }
    } else if (method === "window/logMessage" && this.options.readyLogMessage !== undefined) {
      const message = (params as { message?: unknown })?.message;
      if (typeof message === "string" && new RegExp(this.options.readyLogMessage).test(message)) {
        this.#loggedReady = true;
      }
    } else if (method === this.options.quiescentNotification) {
      this.#quiescent = (params as { quiescent?: unknown })?.quiescent === true;
    } else if (method === "$/progress") {
      const kind = this.progress.observe(params, this.options.indexProgressToken);
      if (kind === "end" && this.#firstOpenAt !== undefined) this.#settled = true;
    }
  }

  /**
   * Waits until the server has loaded the project, at most `timeoutMs`. Resolves false when it
   * has not, so callers can say the answer may be partial.
   */
  async wait(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.options.readiness !== "progress" || this.#settled) return true;
    const waitFor = this.waiters.waitFor.bind(this.waiters);
    if (this.options.readyLogMessage !== undefined) {
      this.#settled = await waitFor(() => this.#loggedReady, timeoutMs, signal);
      return this.#settled;
    }
    if (this.options.quiescentNotification !== undefined) {
      this.#settled = await waitFor(() => this.#quiescent, timeoutMs, signal);
      return this.#settled;
    }
    const deadline = performance.now() + timeoutMs;
    const index = this.options.indexProgressToken;
    if (index !== undefined && this.#firstOpenAt !== undefined && !this.progress.indexBegun) {
      const grace = this.#firstOpenAt + INDEX_START_GRACE_MS - performance.now();
      await waitFor(
        () => this.progress.indexBegun,
        Math.max(1, Math.min(grace, timeoutMs)),
        signal,
      );
    }
    const ready = () => {
      if (this.#firstOpenAt === undefined) return true;
      if (this.progress.size > 0) return false;
      return index !== undefined || this.#settled;
    };
    const ok = await waitFor(ready, Math.max(1, deadline - performance.now()), signal);
    if (ok) this.#settled = true;
    return ok;
  }

  /** True once `wait()` answers true at once: readiness "immediate", or the project loaded. */
  get ready(): boolean {
    return this.options.readiness !== "progress" || this.#settled;
  }
}
