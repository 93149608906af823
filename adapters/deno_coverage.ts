// deno lsp answers a workspace symbol search from its TypeScript isolate, which starts with the
// first question about a document (a hover, a diagnostics pull); until then the search answers
// nothing at all, for as long as nothing else is asked (the demo's search for `Circle`, first after
// start: "No workspace symbols match" in 8 of 8 fresh sessions; a hover first: found). Before the
// first workspace-wide question a server gets, a hover on an open document starts it, and the
// question waits for it (bounded).
import type { CoverageAnswer, CoverageContext, CoverageHook } from "./coverage.ts";

/** How long the isolate may take to start (~5 s here; far more on a loaded machine). */
const START_TIMEOUT_MS = 60_000;

const started = new WeakMap<object, Promise<CoverageAnswer>>();

/** See the file comment. */
export const denoCoverage: CoverageHook = (context) => {
  let answer = started.get(context.client);
  if (!answer) {
    const mine = answer = start(context);
    started.set(context.client, mine);
    // A start that failed is tried again by the next question.
    mine.then((a) => {
      if (a.partial && started.get(context.client) === mine) started.delete(context.client);
    });
  }
  return answer;
};

async function start(context: CoverageContext): Promise<CoverageAnswer> {
  try {
    // Not the asker's signal: other questions may be waiting on the same start.
    await context.client.request("textDocument/hover", {
      textDocument: { uri: context.uri },
      position: { line: 0, character: 0 },
    }, { timeoutMs: START_TIMEOUT_MS });
    return { partial: false };
  } catch (error) {
    return {
      partial: true,
      reason: "deno lsp's TypeScript had not started: " +
        (error instanceof Error ? error.message : String(error)),
    };
  }
}
