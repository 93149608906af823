// The work a server reports in progress ($/progress): what `status` and progress lines show while
// an agent waits, and what readiness and diagnostics wait out.
import type * as proto from "vscode-languageserver-protocol";
import { describeProgress } from "./client_util.ts";

/** The server's work in progress, by token. */
export class ProgressTracker {
  readonly #active = new Map<string | number, string>();
  readonly #titles = new Map<string | number, string>();
  /** performance.now() when work last ended. */
  endedAt = -Infinity;
  /** The adapter's index progress token has begun (see ClientOptions.indexProgressToken). */
  indexBegun = false;

  /** How many pieces of work are in progress. */
  get size(): number {
    return this.#active.size;
  }

  /** Each piece of work in progress, in words ("Indexing 45%: 12/30 files"). */
  descriptions(): string[] {
    return [...this.#active.values()];
  }

  /** Takes in one `$/progress` notification; returns its kind, when it was one. */
  observe(
    params: unknown,
    indexToken?: string | number,
  ): "begin" | "report" | "end" | undefined {
    const p = params as {
      token: string | number;
      value?:
        | proto.WorkDoneProgressBegin
        | proto.WorkDoneProgressReport
        | proto.WorkDoneProgressEnd;
    };
    if (p?.value?.kind === "begin") {
      if (p.token === indexToken) this.indexBegun = true;
      this.#titles.set(p.token, p.value.title || "working");
      this.#active.set(p.token, describeProgress(p.value.title || "working", p.value));
      return "begin";
    }
    if (p?.value?.kind === "report" && this.#active.has(p.token)) {
      // Shown to the user while they wait (`status`, progress lines): title, percentage, message.
      const title = this.#titles.get(p.token) ?? "working";
      this.#active.set(p.token, describeProgress(title, p.value));
      return "report";
    }
    if (p?.value?.kind === "end") {
      this.#titles.delete(p.token);
      this.#active.delete(p.token);
      this.endedAt = performance.now();
      return "end";
    }
    return undefined;
  }
}
