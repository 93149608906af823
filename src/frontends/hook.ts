import { isAbsolute, resolve } from "node:path";
import { toLspGateError } from "../errors.ts";
import type { DiagnosticView, FileDiagnostics } from "../actions/diagnostics.ts";
import type { Session } from "../session.ts";

/** Options of runHook(). */
export interface HookOptions {
  /** Where the hook payload is read from when no file is given (default: stdin). */
  stdin?: ReadableStream<Uint8Array>;
}

type Diagnostic = DiagnosticView;
type FileResult = FileDiagnostics;

const MAX_FILES_PER_REQUEST = 64;
const MAX_REPORT_LINES = 60;

/**
 * `lspgate hook [FILE...]`: the diagnostics of files an agent just edited, for post-edit hooks
 * (Claude Code `PostToolUse`, and the like).
 *
 * Input: file paths as arguments (relative to the workspace root, or absolute). With no
 * arguments, a hook's JSON payload on stdin, the edited file taken from `tool_input.file_path`,
 * `tool_input.filePath`, `tool_input.path`, `tool_response.filePath` or a top-level `file_path`
 * (a relative one against the payload's `cwd`). Files outside the workspace, missing files and
 * files no language server handles are skipped quietly; a payload naming no file (a Bash tool
 * call) is a clean run.
 *
 * Output and exit code:
 * - 0: no errors. Warnings, if any, are listed on stdout; a clean run prints nothing.
 * - 2: errors found. The report goes to stderr, which Claude Code feeds back to the model on
 *   exit 2: a count line, then `path:line:column severity [source code]: message`, errors first,
 *   then warnings, at most 60 lines.
 * - 1: lspgate's own failure (no payload, bad JSON, a server that would not start, diagnostics
 *   that timed out): the reason on stderr, which Claude Code shows the user, not the model.
 *
 * The session is closed in every case. In Claude Code's settings, under
 * `hooks.PostToolUse`: `{"matcher": "Edit|MultiEdit|Write", "hooks": [{"type": "command",
 * "command": "deno run --allow-read --allow-env --allow-run /path/to/mod.ts hook"}]}`.
 */
export async function runHook(
  session: Session,
  args: string[],
  options: HookOptions = {},
): Promise<number> {
  try {
    let paths = args;
    if (paths.length === 0) {
      const stdin = options.stdin ?? Deno.stdin.readable;
      if (!options.stdin && Deno.stdin.isTerminal()) {
        return fail("give file paths, or a hook's JSON payload on stdin");
      }
      const payload = parsePayload(await new Response(stdin).text());
      if (typeof payload === "string") return fail(payload);
      paths = payload;
    }
    const files = await filesToCheck(session, paths);
    const results: FileResult[] = [];
    for (let i = 0; i < files.length; i += MAX_FILES_PER_REQUEST) {
      const response = await session.handle({
        id: i,
        action: "diagnostics",
        files: files.slice(i, i + MAX_FILES_PER_REQUEST),
        severity: "warning",
      });
      if (!response.ok) return fail(`${response.error.code}: ${response.error.message}`);
      results.push(...(response.details.files ?? []) as FileResult[]);
    }
    return report(results);
  } catch (error) {
    const e = toLspGateError(error);
    return fail(`${e.code}: ${e.message}`);
  } finally {
    await session.close();
  }
}

/** The edited files a hook payload names, or what is wrong with the payload. */
export function parsePayload(text: string): string[] | string {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return "stdin is not JSON; expected a hook payload such as " +
      '{"tool_input": {"file_path": "/abs/path.ts"}}';
  }
  if (!isObject(payload)) return "the hook payload on stdin is not a JSON object";
  const input = isObject(payload.tool_input) ? payload.tool_input : {};
  const output = isObject(payload.tool_response) ? payload.tool_response : {};
  const found = [
    input.file_path,
    input.filePath,
    input.path,
    output.filePath,
    payload.file_path,
  ].filter((p): p is string => typeof p === "string" && p !== "");
  const cwd = typeof payload.cwd === "string" ? payload.cwd : undefined;
  return [...new Set(found.map((p) => cwd && !isAbsolute(p) ? resolve(cwd, p) : p))];
}

/** The paths that resolve to files inside the workspace, deduplicated; the rest are skipped. */
async function filesToCheck(session: Session, paths: string[]): Promise<string[]> {
  const files = new Set<string>();
  for (const path of paths) {
    try {
      files.add(await session.workspace.resolve(path));
    } catch (error) {
      const code = toLspGateError(error).code;
      if (code !== "OUTSIDE_WORKSPACE" && code !== "FILE_NOT_FOUND") throw error;
    }
  }
  return [...files];
}

function report(results: FileResult[]): number {
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const result of results) {
    for (const d of result.diagnostics) {
      const code = d.code !== undefined ? ` [${[d.source, d.code].filter(Boolean).join(" ")}]` : "";
      const message = d.message.trim().replace(/\n/g, "\n    ");
      (d.severity === "error" ? errors : warnings).push(
        `${result.file}:${d.line}:${d.column} ${d.severity}${code}: ${message}`,
      );
    }
  }
  // Errors first, so a cut report still has every error it can.
  const lines = [...errors, ...warnings];
  const failures = results
    .filter((r) => r.status === "timeout" || r.status === "error")
    .map((r) => `${r.file}: no diagnostics (${r.status}): ${r.message ?? "unknown reason"}`);
  const shown = lines.length > MAX_REPORT_LINES
    ? [...lines.slice(0, MAX_REPORT_LINES), `… and ${lines.length - MAX_REPORT_LINES} more`]
    : lines;
  const files = new Set(results.filter((r) => r.diagnostics.length).map((r) => r.file)).size;
  const head =
    `lspgate: ${count(errors.length, "error")}, ${count(warnings.length, "warning")} in ` +
    `${count(files, "edited file")}:`;
  if (errors.length > 0) {
    console.error([head, ...shown, ...failures].join("\n"));
    return 2;
  }
  if (warnings.length > 0) console.log([head, ...shown].join("\n"));
  if (failures.length > 0) {
    console.error(["lspgate hook: could not check every file:", ...failures].join("\n"));
    return 1;
  }
  return 0;
}

function fail(message: string): number {
  console.error(`lspgate hook: ${message}`);
  return 1;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
