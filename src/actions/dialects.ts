// Other agents' `lsp` schemas, read as each means them (issue 17). A field name is not enough:
// ExAthena's `line` and `character` are 0-based (the LSP wire format), Claude Code's and OpenCode's
// are 1-based; oh-my-pi's `timeout` is seconds, lspgate's milliseconds. Each request is read once
// here, the answer says which reading was used, and a 0-based request gets 0-based positions back.
import { LspGateError } from "../errors.ts";
import { normalizeRequest } from "./aliases.ts";

/** How a request was read: whose schema, positions counted from 0 or 1, timeout unit. */
export interface Reading {
  /** `lspgate`, or the agent whose schema the request follows (`exathena`, `oh-my-pi`, …). */
  dialect: string;
  /** Positions in the request, and therefore in the answer, count from 0. */
  zeroBased: boolean;
  /** Sentences that say how something another schema could mean otherwise was read. */
  said: string[];
  /** For `details.reading`. */
  details: Record<string, unknown>;
}

/** oh-my-pi clamps its `timeout` (seconds) to this range. */
const SECONDS_MIN = 5;
const SECONDS_MAX = 60;

/** Reads a raw request in the dialect it follows; returns lspgate's request and the reading. */
export function readDialect(
  raw: Record<string, unknown>,
): { request: Record<string, unknown>; reading: Reading } {
  const reading: Reading = { dialect: "lspgate", zeroBased: false, said: [], details: {} };
  const input = { ...raw };
  // ExAthena: `action` + `file` + `line` + `character`, no `column`, 0-based. Claude Code and
  // OpenCode send `operation` + `filePath` with 1-based `character`; lspgate's own is `column`.
  if (
    "character" in input && !("column" in input) && "action" in input &&
    !("operation" in input) && !("filePath" in input)
  ) {
    reading.dialect = "exathena";
    reading.zeroBased = true;
    for (const key of ["line", "character"]) {
      const value = input[key];
      if (typeof value === "number" && Number.isInteger(value)) {
        if (value < 0) {
          throw new LspGateError(
            "INVALID_INPUT",
            `${key} is 0-based here (action + file + line + character, ExAthena's lsp): the ` +
              "first is 0",
            { [key]: value },
          );
        }
        input[key] = value + 1;
      }
    }
    reading.said.push(
      "Read as ExAthena's lsp (action, file, line, character): line and character count from " +
        "0, here and in this answer. Give column instead of character for 1-based positions.",
    );
  }
  if (ohMyPiShaped(input)) reading.dialect = "oh-my-pi";
  // oh-my-pi: `symbol` + `occurrence` is lspgate's `symbol#N`.
  if ("occurrence" in input) {
    const occurrence = input.occurrence;
    delete input.occurrence;
    if (typeof input.symbol !== "string") {
      throw new LspGateError("INVALID_INPUT", "occurrence goes with symbol (the text on line)");
    }
    if (typeof occurrence !== "number" || !Number.isInteger(occurrence) || occurrence < 1) {
      throw new LspGateError("INVALID_INPUT", "occurrence is 1-based: the first is 1", {
        occurrence,
      });
    }
    input.symbol = `${input.symbol}#${occurrence}`;
  }
  readTimeout(input, reading);
  const request = normalizeRequest(input);
  if (
    reading.dialect === "oh-my-pi" && request.action === "rename" && request.apply === undefined
  ) {
    // oh-my-pi's rename applies unless told not to; lspgate's previews. Its reading wins, said.
    reading.said.push(
      "Previewed, not applied (lspgate's reading of rename without apply; oh-my-pi's schema " +
        "applies by default): send apply: true to write it.",
    );
  }
  if (request.action === "diagnostics" && request.file === undefined && !request.files) {
    // oh-my-pi: "diagnostics … or entire project (no file)".
    request.file = "*";
  }
  if (request.action === "symbols" && request.file === undefined) {
    // oh-my-pi: "search workspace (with query, no file)"; no query lists the workspace's symbols.
    request.file = "*";
  }
  if (request.severity === "all") delete request.severity; // devkit-pi's "all" is every level.
  reading.details = {
    dialect: reading.dialect,
    positions: reading.zeroBased ? "0-based" : "1-based",
    ...reading.details,
  };
  return { request, reading };
}

function ohMyPiShaped(input: Record<string, unknown>): boolean {
  return "occurrence" in input ||
    (typeof input.action === "string" && input.action.toLowerCase() === "reload");
}

/**
 * `timeout_ms` is lspgate's milliseconds. `timeout` is oh-my-pi's seconds (clamped 5–60) where
 * it can only be seconds (60 or less: no server answers in a handful of milliseconds, or the
 * request is oh-my-pi's by its other fields); a larger one is lspgate's milliseconds, as before.
 */
function readTimeout(input: Record<string, unknown>, reading: Reading): void {
  const timeout = input.timeout;
  if ("timeout_ms" in input) {
    if (timeout !== undefined) {
      throw new LspGateError(
        "INVALID_INPUT",
        "give one of timeout (seconds, oh-my-pi's) or timeout_ms (milliseconds)",
      );
    }
    input.timeout = input.timeout_ms;
    delete input.timeout_ms;
    reading.details.timeout = "milliseconds";
    return;
  }
  if (typeof timeout !== "number" || !Number.isFinite(timeout)) return;
  if (timeout <= SECONDS_MAX || reading.dialect === "oh-my-pi") {
    const seconds = Math.min(SECONDS_MAX, Math.max(SECONDS_MIN, timeout));
    input.timeout = Math.round(seconds * 1000);
    reading.details.timeout = "seconds";
    reading.said.push(
      `timeout ${timeout} read as seconds (oh-my-pi's, clamped to ${SECONDS_MIN}–${SECONDS_MAX}: ` +
        `${seconds} s); give timeout_ms for milliseconds.`,
    );
  } else {
    reading.details.timeout = "milliseconds";
    reading.said.push(
      `timeout ${timeout} read as milliseconds (lspgate's); oh-my-pi's seconds go up to ` +
        `${SECONDS_MAX}, and timeout_ms is always milliseconds.`,
    );
  }
}

/** Position keys of `details`, shifted to 0-based for a 0-based reading. */
const POSITION_KEYS = new Set(["line", "column", "endLine", "endColumn", "end_line", "end_column"]);

/** The answer as the reading's schema expects it: positions 0-based where asked so, said. */
export function answerIn<T extends { text: string; details: Record<string, unknown> }>(
  answer: T,
  reading: Reading,
): T {
  if (plain(reading)) return answer;
  const details = reading.zeroBased ? shift(answer.details) as Record<string, unknown> : {
    ...answer.details,
  };
  details.reading = reading.details;
  const text = reading.zeroBased ? shiftText(answer.text) : answer.text;
  return { ...answer, text: [text, ...reading.said].join("\n\n"), details };
}

/** An error as the reading's schema expects it: data 0-based where asked so, the reading said. */
export function errorIn(
  error: { code: string; message: string; data?: Record<string, unknown> },
  reading: Reading | undefined,
): { code: string; message: string; data?: Record<string, unknown> } {
  const out = {
    code: error.code,
    message: error.message,
    ...(error.data ? { data: error.data } : {}),
  };
  if (!reading || plain(reading)) return out;
  const data = (reading.zeroBased ? shift(error.data ?? {}) : { ...error.data }) as Record<
    string,
    unknown
  >;
  data.reading = reading.details;
  const said = reading.zeroBased
    ? " (Line numbers in this message count from 1; data's count from 0, as the request did.)"
    : "";
  return { ...out, message: out.message + said, data };
}

/** lspgate's own reading with nothing to say: the answer is left as it is. */
function plain(reading: Reading): boolean {
  return reading.dialect === "lspgate" && reading.said.length === 0 &&
    reading.details.timeout === undefined;
}

function shift(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shift);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (POSITION_KEYS.has(key) && typeof item === "number") out[key] = item - 1;
    else if (key === "nearbyLines" && Array.isArray(item)) {
      out[key] = item.map((n) => typeof n === "number" ? n - 1 : n);
    } else out[key] = shift(item);
  }
  return out;
}

/**
 * The text's `path:line:column` and the numbered source lines under each, 0-based. Only those:
 * prose and hover markdown keep their numbers.
 */
function shiftText(text: string): string {
  const head = /^(\S[^\s:]*):(\d+):(\d+)/;
  let inContext = false;
  return text.split("\n").map((line) => {
    if (head.test(line)) {
      inContext = true;
      return line.replace(head, (_, path, l, c) => `${path}:${Number(l) - 1}:${Number(c) - 1}`);
    }
    const numbered = inContext ? /^( *)(\d+)([> ] )/.exec(line) : null;
    if (numbered) {
      const n = String(Number(numbered[2]) - 1).padStart(numbered[2].length);
      return `${numbered[1]}${n}${numbered[3]}${line.slice(numbered[0].length)}`;
    }
    inContext = false;
    // `path:line:column` inside a sentence ("Definition of `x` at src/a.ts:3:17:"), and an
    // outline's `(line:column)` at the end of its line.
    return line.replace(
      /([\w./-]+\.\w+):(\d+):(\d+)/g,
      (_, path, l, c) => `${path}:${Number(l) - 1}:${Number(c) - 1}`,
    ).replace(/\((\d+):(\d+)\)$/, (_, l, c) => `(${Number(l) - 1}:${Number(c) - 1})`);
  }).join("\n");
}
