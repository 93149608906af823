/**
 * Deadlines that share one timer. Every query sets two, its server request's timeout and its
 * flush's bound, and nearly always clears both long before they come: a Node `Timeout` set and
 * cleared for each, with the AbortController that cleared the flush's, was ~5% of lspgate's main
 * thread per clangd definition in a profile. Here a deadline is an entry in a map; clearing it
 * deletes the entry; the one timer is set again only for a deadline earlier than the one it waits
 * for, or when it fires.
 *
 * A deadline set holds the process open, as the timer it replaces did; the timer left waiting
 * after every deadline was cleared does not.
 */
export class Deadlines {
  readonly #entries = new Map<number, { at: number; fire: () => void }>();
  #nextKey = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;
  #timerHoldsOpen = false;

  /** Calls `fire` in `ms` milliseconds unless the returned function is called first. */
  add(ms: number, fire: () => void): () => void {
    const key = this.#nextKey++;
    const at = performance.now() + ms;
    this.#entries.set(key, { at, fire });
    if (at < this.#timerAt) this.#arm(at);
    else this.#holdOpen(true);
    return () => {
      if (this.#entries.delete(key) && this.#entries.size === 0) this.#holdOpen(false);
    };
  }

  /** How many deadlines are set (for tests). */
  get size(): number {
    return this.#entries.size;
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, Math.ceil(at - performance.now())));
    this.#timerHoldsOpen = true;
  }

  #holdOpen(hold: boolean): void {
    if (this.#timer === undefined || this.#timerHoldsOpen === hold) return;
    if (hold) Deno.refTimer(this.#timer);
    else Deno.unrefTimer(this.#timer);
    this.#timerHoldsOpen = hold;
  }

  #expire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = performance.now();
    const due: (() => void)[] = [];
    let earliest = Infinity;
    for (const [key, entry] of this.#entries) {
      if (entry.at <= now) {
        this.#entries.delete(key);
        due.push(entry.fire);
      } else if (entry.at < earliest) earliest = entry.at;
    }
    if (earliest < this.#timerAt) this.#arm(earliest);
    for (const fire of due) fire();
  }
}

/** The process's (or the Worker's) deadlines. */
export const deadlines = new Deadlines();
