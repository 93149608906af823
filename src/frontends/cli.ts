import type { Response } from "../session.ts";
import { type Gate, handleWithProgress } from "./gate.ts";

/** The usage line of `lspgate call`. */
export const CALL_USAGE = "usage: lspgate call ACTION [key=value ...] [--json]  " +
  "(e.g. lspgate call definition file=src/a.ts line=12 symbol=foo)";

/** Options of runCall(). */
export interface CallOptions {
  /** Print the whole Response as JSON instead of its text. */
  json?: boolean;
}

// Fields whose values are parsed; every other known field stays a string ("new_name=123").
const NUMBER_FIELDS = new Set([
  "line",
  "column",
  "end_line",
  "end_column",
  "timeout",
  "timeout_ms",
  "target",
  "occurrence",
]);
const JSON_FIELDS = new Set(["edits"]);
const BOOLEAN_FIELDS = new Set(["apply", "include_declaration", "check", "if_clean"]);
const LIST_FIELDS = new Set(["files"]);
// payload stays a string too: the request action reads a JSON string as its params.
const STRING_FIELDS = new Set([
  "file",
  "symbol",
  "query",
  "new_name",
  "severity",
  "server",
  "payload",
]);

/**
 * `lspgate call ACTION key=value ...`: one request from the command line. Numbers and booleans
 * are parsed (`line=12`, `apply=true`), `files=a.ts,b.ts` is a list (and may repeat), `--json`
 * prints the whole Response. Prints the answer's text on stdout and returns 0; an error
 * Response prints `CODE: message` on stderr and returns 1; bad usage prints the usage line and
 * returns 2. The session is closed in every case.
 */
export async function runCall(
  session: Gate,
  args: string[],
  options: CallOptions = {},
): Promise<number> {
  try {
    const json = options.json || args.includes("--json");
    const parsed = await parseCallArgs(args.filter((arg) => arg !== "--json"));
    if (typeof parsed === "string") {
      console.error(`lspgate call: ${parsed}\n${CALL_USAGE}`);
      return 2;
    }
    // On a terminal, what the servers are doing while the answer is awaited (on stderr).
    const terminal = Deno.stderr.isTerminal();
    const encoder = new TextEncoder();
    const response = await handleWithProgress(
      session,
      { id: 1, ...parsed, ...(terminal ? { progress: true } : {}) },
      (update) => {
        const line = update.message ? `lspgate: ${update.message}` : "";
        Deno.stderr.writeSync(encoder.encode(`\r\x1b[K${line.slice(0, 200)}`));
      },
    );
    if (terminal) Deno.stderr.writeSync(encoder.encode("\r\x1b[K"));
    if (json) console.log(JSON.stringify(response, null, 2));
    else print(response);
    return response.ok ? 0 : 1;
  } finally {
    await session.close();
  }
}

/**
 * `ACTION key=value ...` as a request object, or what is wrong with it. The action table loads
 * only to name the actions on bad usage: a `call` through the daemon never loads it.
 */
export async function parseCallArgs(args: string[]): Promise<Record<string, unknown> | string> {
  const [action, ...pairs] = args;
  if (!action || action.includes("=")) {
    const { ACTIONS } = await import("../actions/table.ts");
    return `the first argument is the action, one of: ${[...ACTIONS.keys()].join(", ")}`;
  }
  const request: Record<string, unknown> = { action };
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) return `expected key=value, got \`${pair}\``;
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    if (LIST_FIELDS.has(key)) {
      const items = raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
      request[key] = [...(request[key] as string[] | undefined ?? []), ...items];
      continue;
    }
    if (key in request) return `${key} is given twice`;
    request[key] = parseValue(key, raw);
  }
  return request;
}

function parseValue(key: string, raw: string): unknown {
  if (STRING_FIELDS.has(key)) return raw;
  const number = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : undefined;
  if (NUMBER_FIELDS.has(key)) return number ?? raw;
  const boolean = raw === "true" ? true : raw === "false" ? false : undefined;
  if (BOOLEAN_FIELDS.has(key)) return boolean ?? raw;
  // `edits=[{...}]`, `payload={...}`: JSON given as such.
  if (JSON_FIELDS.has(key) && /^[[{]/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  // Fields we do not know (another tool's spellings such as `character`): a guess the session's
  // validation checks anyway.
  return number ?? boolean ?? raw;
}

function print(response: Response): void {
  if (response.ok) {
    console.log(response.content.map((c) => c.text).join("\n"));
  } else {
    console.error(`${response.error.code}: ${response.error.message}`);
  }
}
