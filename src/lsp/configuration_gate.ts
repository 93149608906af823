// Some servers read their settings with `workspace/configuration` after `initialized` and ignore
// the documents opened before they have them: bash-language-server analyses only the last document
// opened in that window (its onInitialized awaits the configuration, then lints `currentDocument`
// alone), so of two files asked together one never gets diagnostics and its symbols read empty
// (issue 17). For such a server the first didOpen waits until lspgate has answered that request,
// at most a bound: a server that never asks is not waited for again.

/** Waits for a server's first `workspace/configuration`, once. */
export class ConfigurationGate {
  #open = false;
  #release!: () => void;
  readonly #opened = new Promise<void>((resolve) => this.#release = resolve);

  /** The server has been answered its configuration: documents may be opened. */
  open(): void {
    this.#open = true;
    this.#release();
  }

  /** Resolves once open() was called, or after `boundMs` (then the gate stays open). */
  async wait(boundMs: number): Promise<void> {
    if (this.#open) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#opened,
      new Promise<void>((resolve) => timer = setTimeout(resolve, boundMs)),
    ]);
    clearTimeout(timer);
    this.open();
  }
}
