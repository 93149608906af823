// What a request's id may be: one its answer carries back exactly. Loads nothing but errors.ts and
// the id scanner: the daemon's thin clients check ids too.
import { LspGateError } from "./errors.ts";
import { IdScanner } from "./frontends/id_scanner.ts";

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
 * Whether the line a request came in writes its numeric top-level `id` exactly as the number read
 * from it: `1.0000000000000001` and `1e0` are read as 1, which an answer would not carry back as
 * sent. Read as JSON.parse reads it (the last top-level id, escaped keys), a nested `id` aside.
 */
export function idWrittenExactly(line: string, id: number): boolean {
  // Most lines write their id once, plainly (`"id":7`): that is read off the text. Anything else
  // (an escape anywhere, "id" twice, `1.0`) goes through the scanner, which reads as JSON.parse.
  if (!line.includes("\\")) {
    const at = line.indexOf('"id"');
    if (at !== -1 && line.indexOf('"id"', at + 4) === -1) {
      const written = /^\s*:\s*(-?\d+)\s*[,}]/.exec(line.slice(at + 4, at + 40));
      if (written?.[1] === String(id)) return true;
    }
  }
  const scanner = new IdScanner();
  scanner.feed(new TextEncoder().encode(line));
  return scanner.id === id;
}

/** The CANCELLED error's message for the request whose id is `key` (its JSON). */
export function cancelledMessage(key: string): string {
  return `request ${key} was cancelled`;
}

/** What a `cancel` answers about `target`. */
export function cancelText(target: string | number, cancelled: boolean): string {
  return cancelled ? `Cancelled request ${target}.` : `No request ${target} is in flight.`;
}
