import { LspGateError } from "../errors.ts";

/**
 * Shared and exclusive holds on files, by real path. A query holds its file shared while it uses
 * the server's view of it; an overlay (a what-if or a checked edit, which puts proposed text in
 * the server's view) holds its files exclusively, so no other query sees that text.
 *
 * Architecture Invariant: an exclusive hold is taken for all its files at once, and its holder
 * never waits for a hold while it has one; a shared hold waits only for exclusive holders (not
 * for exclusive waiters: a query holding its file may take a second shared hold on it, for a
 * linter). So no two requests can wait for each other.
 */
export class DocumentLocks {
  #shared = new Map<string, number>();
  #exclusive = new Set<string>();
  #waiters = new Set<() => void>();

  /** Holds `path` shared once no overlay has it; resolves to the release. */
  async shared(path: string, signal?: AbortSignal): Promise<() => void> {
    await this.#wait(() => !this.#exclusive.has(path), { signal });
    this.#shared.set(path, (this.#shared.get(path) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const count = (this.#shared.get(path) ?? 1) - 1;
      if (count > 0) this.#shared.set(path, count);
      else this.#shared.delete(path);
      this.#wake();
    };
  }

  /**
   * Holds every one of `paths` exclusively, once none is held by anyone; resolves to the release.
   * TIMEOUT after `timeoutMs`, CANCELLED when `signal` aborts.
   */
  async exclusive(
    paths: readonly string[],
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<() => void> {
    const wanted = [...new Set(paths)];
    const free = () => wanted.every((p) => !this.#exclusive.has(p) && !this.#shared.has(p));
    await this.#wait(free, options);
    for (const path of wanted) this.#exclusive.add(path);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const path of wanted) this.#exclusive.delete(path);
      this.#wake();
    };
  }

  /** Whether an overlay holds `path`. */
  isExclusive(path: string): boolean {
    return this.#exclusive.has(path);
  }

  #wake() {
    for (const waiter of [...this.#waiters]) waiter();
  }

  #wait(
    ready: () => boolean,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<void> {
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(cancelled());
    if (ready()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const finish = (error?: LspGateError) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        signal?.removeEventListener("abort", onAbort);
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        if (ready()) finish();
      };
      const onAbort = () => finish(cancelled());
      const timer = timeoutMs === undefined ? undefined : setTimeout(
        () =>
          finish(
            new LspGateError(
              "TIMEOUT",
              `the file is in use by other requests; waited ${timeoutMs} ms for them to finish`,
            ),
          ),
        timeoutMs,
      );
      this.#waiters.add(check);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

function cancelled(): LspGateError {
  return new LspGateError("CANCELLED", "the request was cancelled");
}
