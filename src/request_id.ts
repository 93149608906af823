// What a request's id may be: one its answer carries back exactly. Loads nothing but errors.ts:
// the daemon's thin clients check ids too.
import { LspGateError } from "./errors.ts";

/**
 * Refuses an id its answer could not carry back as sent: an object or array (it was answered
 * under `null`, as a success), or a number other than an integer of at most 2^53, which JSON.parse
 * rounds (9007199254740993 came back as 9007199254740992, the id of another request; 1e400 as
 * null; 1.0000000000000001 as 1).
 */
export function checkId(id: unknown): void {
  if (id === undefined || id === null || typeof id === "string") return;
  if (typeof id === "number" && Number.isSafeInteger(id)) return;
  throw new LspGateError(
    "INVALID_INPUT",
    typeof id === "number"
      ? "a numeric id must be an integer of at most 2^53 to be answered exactly; send it as a " +
        "string"
      : "the id must be a string or a number",
  );
}

/**
 * Whether the line a request came in writes its numeric `id` exactly as the number read from it:
 * `1.0000000000000001` and `1e0` are read as 1, which an answer would not carry back as sent.
 */
export function idWrittenExactly(line: string, id: number): boolean {
  for (const match of line.matchAll(/"id"\s*:\s*(-?\d+)\s*[,}]/g)) {
    if (match[1] === String(id)) return true;
  }
  return false;
}
