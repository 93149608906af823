// Waits on what a server says: each wait is a predicate checked again after every message, so a
// caller wakes as soon as the condition holds instead of polling.

/** Pending waits for conditions on the server's messages, checked again on each `notify()`. */
export class Waiters {
  readonly #waiters = new Set<() => void>();
  readonly #gone: () => boolean;

  /** `gone` says the server has ended: a wait then ends false, as nothing will change. */
  constructor(gone: () => boolean) {
    this.#gone = gone;
  }

  /** Checks every pending wait again (after a message, a registration, the exit). */
  notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** Resolves true as soon as `predicate` holds, false on timeout, exit or abort. */
  waitFor(predicate: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (predicate()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (value: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        signal?.removeEventListener("abort", onAbort);
        resolve(value);
      };
      const check = () => {
        if (predicate()) finish(true);
        else if (this.#gone()) finish(false);
      };
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.#waiters.add(check);
      signal?.addEventListener("abort", onAbort);
    });
  }
}
