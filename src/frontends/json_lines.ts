import { type Gate, handleWithProgress } from "./gate.ts";
import { type ByteSink, type ByteSource, LineWriter, readLines } from "./lines.ts";
import { idWrittenExactly } from "../request_id.ts";

/**
 * The primary interface: one JSON request per input line, one JSON response per output line,
 * requests run concurrently and answered as they finish. Returns at EOF, after every answer is
 * written and every server shut down.
 */
export async function serveJsonLines(
  session: Gate,
  input: ByteSource,
  output: ByteSink,
): Promise<void> {
  const writer = new LineWriter(output);
  const pending = new Set<Promise<void>>();
  const answer = (value: unknown) => writer.write(JSON.stringify(value));
  for await (const line of readLines(input)) {
    if (typeof line !== "string") {
      // Under its id where the dropped line had one, so the agent waiting for it hears.
      await answer({
        id: line.id ?? null,
        ok: false,
        error: { code: "INVALID_INPUT", message: `line of ${line.tooLong} characters is too long` },
      });
      continue;
    }
    if (line.trim() === "") continue;
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch (error) {
      await answer({
        id: null,
        ok: false,
        error: {
          code: "INVALID_JSON",
          message: `not JSON: ${error instanceof Error ? error.message : error}`,
        },
      });
      continue;
    }
    // With "progress": true, progress lines ({"id", "progress"}) come before the answer.
    const id = (request as { id?: unknown })?.id ?? null;
    if (typeof id === "number" && Number.isSafeInteger(id) && !idWrittenExactly(line, id)) {
      await answer({
        id: null,
        ok: false,
        error: {
          code: "INVALID_INPUT",
          message: `the id is not written as the integer ${id} it reads as; send it as a string`,
        },
      });
      continue;
    }
    const task = handleWithProgress(session, request, (progress) => answer({ id, progress }))
      .then(answer);
    pending.add(task);
    task.finally(() => pending.delete(task));
  }
  // Requests piped in before EOF are still answered; a crafted file's parse is not waited out.
  session.endInput?.();
  await Promise.all(pending);
  await writer.close();
  await session.close();
}
