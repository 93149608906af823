// What a request's id may be: one its answer carries back exactly. Loads nothing but errors.ts:
// the daemon's thin clients check ids too.
import { LspGateError } from "./errors.ts";

/**
 * Refuses an id its answer could not carry back as sent: an object or array (it was answered
 * under `null`, as a success), or an integer past 2^53, which JSON.parse rounds (9007199254740993
 * came back as 9007199254740992, the id of another request).
 */
export function checkId(id: unknown): void {
  if (id === undefined || id === null || typeof id === "string") return;
  if (typeof id === "number" && !(Number.isInteger(id) && !Number.isSafeInteger(id))) return;
  throw new LspGateError(
    "INVALID_INPUT",
    typeof id === "number"
      ? "the id is an integer too large to be answered exactly; send it as a string"
      : "the id must be a string or a number",
  );
}
