/// <reference lib="deno.worker" />
// The parse Worker: runs one syntax job at a time for the pool (pool.ts), posting each stage as
// it starts so a job ended from outside can still say how far it got.
import { analyzeHere, checkNameHere } from "./analyze.ts";
import { SyntaxTimeout, SyntaxUnavailable, wasmBytes } from "./loader.ts";
import type { SyntaxStage } from "./types.ts";
import type { FromSyntaxWorker, SyntaxAnswer, ToSyntaxWorker } from "./pool_protocol.ts";

/** Serves syntax jobs in this Worker until it is terminated. */
export function serveSyntaxWorker(): void {
  // Jobs arrive one at a time (the pool sends the next after an answer); in order regardless.
  let queue = Promise.resolve();
  self.onmessage = (event: MessageEvent<ToSyntaxWorker>) => {
    queue = queue.then(() => run(event.data));
  };
}

async function run({ id, job, budgetMs }: ToSyntaxWorker): Promise<void> {
  const deadline = performance.now() + budgetMs;
  const post = (message: FromSyntaxWorker) => self.postMessage(message);
  try {
    let answer: SyntaxAnswer;
    if (job.kind === "analyze") {
      const onStage = (reached: SyntaxStage) => post({ id, reached });
      answer = await analyzeHere(job.language, job.text, deadline, onStage, job.outline);
    } else {
      post({ id, reached: "rename" });
      answer = await checkNameHere(job.language, job.text, job.position, job.newName, deadline);
    }
    post({ id, answer, wasmBytes: wasmBytes() });
  } catch (error) {
    if (error instanceof SyntaxTimeout || error instanceof SyntaxUnavailable) {
      post({
        id,
        failure: error instanceof SyntaxTimeout ? "timeout" : "unavailable",
        message: error.message,
        ...(error instanceof SyntaxTimeout ? { stage: error.stage } : {}),
        wasmBytes: wasmBytes(),
      });
      return;
    }
    // Anything else (an allocation past the memory cap aborts the runtime) ends this Worker:
    // the pool hears it as an error and starts a fresh one for the next job.
    throw error;
  }
}
