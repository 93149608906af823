import { isAbsolute, resolve } from "node:path";
import { toLspGateError } from "../errors.ts";
import type { DiagnosticView, FileDiagnostics } from "../actions/diagnostics.ts";
import type { Gate } from "./gate.ts";
import { findImporters } from "./importers.ts";
import { readTurn, touch, updateTurn } from "./turn_state.ts";

/** Options of runHook(). */
export interface HookOptions {
  /** Where the hook payload is read from when no file is given (default: stdin). */
  stdin?: ReadableStream<Uint8Array>;
  /** How long the whole check may take before the hook gives up, exit 0 (default 50 s). */
  deadlineMs?: number;
  /**
   * `stop`: the end-of-turn report, every file touched during the agent's turn (remembered per
   * session id by the post-edit runs). Default: the payload's `hook_event_name` decides.
   */
  event?: string;
}

/** What a hook payload says: the edited files, and who and when. */
export interface HookPayload {
  files: string[];
  /** The agent's session id (Claude Code's `session_id`). */
  session?: string;
  /** Claude Code's `hook_event_name`: `PostToolUse`, `Stop`, … */
  event?: string;
  /** Claude Code's `stop_hook_active`: the agent is already continuing because of a stop hook. */
  stopHookActive?: boolean;
}

/** What the hook prints and its exit code, before it is printed. */
export interface HookReport {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

/** A file's diagnostics as the diagnostics action gives them, syntax-only ones included. */
export type HookFileResult = FileDiagnostics & { syntaxOnly?: boolean; reason?: string };

const MAX_FILES_PER_REQUEST = 64;
const MAX_IMPORTERS = 16;
// How long importers may take after the edited files have answered.
const IMPORTER_GRACE_MS = 300;
const MAX_REPORT_LINES = 60;
const MAX_MESSAGE_LINES = 4;
const MAX_MESSAGE_CHARS = 400;
const MAX_REPORT_CHARS = 20_000;
const MAX_NOTE_CHARS = 1_000;
const MAX_REASON_CHARS = 200;
// Claude Code stops a hook after 60 s; a hook that answers first says why it gave up.
const DEADLINE_MS = 50_000;

/**
 * `lspgate hook [FILE...]`: the diagnostics of files an agent just edited, for post-edit hooks
 * (Claude Code `PostToolUse`, and the like). It never fails the agent's edit: only errors found
 * in the edited files exit non-zero.
 *
 * Input: file paths as arguments (relative to the workspace root, or absolute). With no
 * arguments, a hook's JSON payload on stdin, the edited file taken from `tool_input.file_path`,
 * `tool_input.filePath`, `tool_input.path`, `tool_response.filePath` or a top-level `file_path`
 * (a relative one against the payload's `cwd`). Files outside the workspace and missing files
 * are skipped quietly; a payload naming no file (a Bash tool call) is a clean run.
 *
 * Output and exit code:
 * - 2: errors found. The report goes to stderr, which Claude Code feeds back to the model on
 *   exit 2: a count line, then `path:line:column severity [source code]: message`, errors first,
 *   then warnings, at most 60 lines (each message at most 4 lines, the whole at most 20,000
 *   characters), then a `not checked:` line for any file that could not be checked.
 * - 0: no errors. Warnings, if any, are listed on stdout (bounded the same way); a clean run
 *   prints nothing.
 * - 0 also for lspgate's own failures — no or bad payload, a file no server handles, a server
 *   not installed, one that failed to start or crashed, diagnostics that timed out, the
 *   deadline — with exactly one line on stderr: `lspgate hook: …`. A file checked for syntax
 *   only (its server is missing) counts as not checked unless its syntax errors are found.
 *
 * The session is closed in every case. In Claude Code's settings, under
 * `hooks.PostToolUse`: `{"matcher": "Edit|MultiEdit|Write", "hooks": [{"type": "command",
 * "command": "deno run --allow-read --allow-env --allow-run /path/to/mod.ts hook"}]}`.
 */
export async function runHook(
  session: Gate,
  args: string[],
  options: HookOptions = {},
): Promise<number> {
  const deadlineMs = options.deadlineMs ?? DEADLINE_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), deadlineMs);
  });
  try {
    const outcome = await Promise.race([check(session, args, options), expired]);
    if (outcome === "expired") {
      return hookFailure(
        `gave up after ${deadlineMs / 1000} s: the diagnostics were not ready in time`,
      );
    }
    if (typeof outcome === "string") return hookFailure(outcome);
    if (outcome.stdout) console.log(outcome.stdout);
    if (outcome.stderr) console.error(outcome.stderr);
    return outcome.code;
  } catch (error) {
    const e = toLspGateError(error);
    return hookFailure(`${e.code}: ${e.message}`);
  } finally {
    clearTimeout(timer);
    // Also cancels what is still in flight when the deadline passed.
    await session.close();
  }
}

/**
 * Says one of lspgate's own failures as the hook does: one line on stderr, `lspgate hook: …`
 * (newlines folded, at most 1,000 characters), and exit code 0.
 */
export function hookFailure(message: string): 0 {
  console.error(`lspgate hook: ${oneLine(message, MAX_NOTE_CHARS)}`);
  return 0;
}

/** The report of a checked set of edited files, or (a string) lspgate's own failure. */
async function check(
  session: Gate,
  args: string[],
  options: HookOptions,
): Promise<HookReport | string> {
  const started = performance.now();
  let payload: HookPayload = { files: args };
  if (args.length === 0) {
    if (!options.stdin && Deno.stdin.isTerminal()) {
      return "give file paths, or a hook's JSON payload on stdin";
    }
    const read = readPayload(await new Response(options.stdin ?? Deno.stdin.readable).text());
    if (typeof read === "string") return read;
    payload = read;
  }
  const root = session.workspace.path;
  const stop = (options.event ?? (payload.event === "Stop" ? "stop" : "post")) === "stop";
  const turn = payload.session ? await readTurn(payload.session, root) : undefined;
  if (stop) {
    if (!payload.session || !turn) return "the end-of-turn report needs the payload's session_id";
    // The turn is over: what it touched is reported once, and forgotten.
    const ended = await updateTurn(payload.session, root, (now) => ({ ...now, touched: [] }));
    if (ended.touched.length === 0) return { code: 0, stdout: "", stderr: "" };
    const { files, unchecked } = await filesToCheck(session, ended.touched);
    const results = await diagnosticsOf(session, files);
    if (typeof results === "string") return results;
    const report = hookReport(results, unchecked);
    // Already continuing because of a stop hook: say it, but let the agent stop.
    if (report.code === 2 && payload.stopHookActive) {
      return { code: 0, stdout: report.stderr, stderr: "" };
    }
    return report;
  }
  const { files, unchecked } = await filesToCheck(session, payload.files);
  // The files that import an edited one, asked beside it: an edit that breaks a caller elsewhere
  // is reported (its errors the hook has not reported before in this session). Each importer is
  // asked on its own, and the ones not answered shortly after the edited files are left out:
  // a broken caller answers fast, a clean one may only be confirmed after a server's quiet window.
  const left = (options.deadlineMs ?? DEADLINE_MS) - (performance.now() - started) - 100;
  let editedDone!: () => void;
  const edited = new Promise<void>((resolve) => editedDone = resolve);
  const grace = edited.then(() => new Promise<void>((r) => setTimeout(r, IMPORTER_GRACE_MS)));
  const importersTask = left > 0 ? importersOf(session, files, left, grace) : Promise.resolve([]);
  const results = await diagnosticsOf(session, files);
  editedDone();
  const importers = await importersTask;
  if (typeof results === "string") return results;
  // What this hook reports now, per file; merged into the session's state as it is by then.
  const reported: Record<string, string[]> = {};
  const fresh: HookFileResult[] = [];
  for (const result of importers) {
    const errors = result.diagnostics.filter((d) => d.severity === "error");
    const before = new Set(turn?.reported[result.file] ?? []);
    const added = errors.filter((d) => !before.has(signature(d)));
    reported[result.file] = errors.map(signature);
    if (added.length) fresh.push({ ...result, diagnostics: added });
  }
  for (const result of results) {
    reported[result.file] = result.diagnostics.filter((d) => d.severity === "error").map(signature);
  }
  if (payload.session) {
    await updateTurn(payload.session, root, (now) => ({
      touched: touch(now, results.map((r) => r.file)).touched,
      reported: { ...now.reported, ...reported },
    }));
  }
  return hookReport([...results, ...fresh], unchecked);
}

/** Diagnostics (errors and warnings) of `files`, or lspgate's own failure as a string. */
async function diagnosticsOf(session: Gate, files: string[]): Promise<HookFileResult[] | string> {
  const results: HookFileResult[] = [];
  for (let i = 0; i < files.length; i += MAX_FILES_PER_REQUEST) {
    const response = await session.handle({
      id: `hook-${i}`,
      action: "diagnostics",
      files: files.slice(i, i + MAX_FILES_PER_REQUEST),
      severity: "warning",
    });
    if (!response.ok) return `${response.error.code}: ${response.error.message}`;
    results.push(...(response.details.files ?? []) as HookFileResult[]);
  }
  return results;
}

/**
 * The diagnostics (errors) of the files importing `files` (see findImporters), each asked on its
 * own; what has not answered within `withinMs`, or once `enough` settles, is cancelled and left out.
 */
async function importersOf(
  session: Gate,
  files: string[],
  withinMs: number,
  enough: Promise<void>,
): Promise<HookFileResult[]> {
  const found = new Set<string>();
  for (const file of files) {
    const path = await session.workspace.resolve(file).catch(() => undefined);
    if (!path) continue;
    for (const importer of await findImporters(session.workspace, path, MAX_IMPORTERS)) {
      const rel = session.workspace.relative(importer);
      if (!files.includes(rel)) found.add(rel);
    }
  }
  if (found.size === 0) return [];
  const answered: HookFileResult[] = [];
  const pending = new Set<string>();
  const asked = [...found].map(async (file) => {
    const id = `hook-importer-${crypto.randomUUID()}`;
    pending.add(id);
    const response = await session.handle({ id, action: "diagnostics", file, severity: "error" });
    pending.delete(id);
    if (response.ok) answered.push(...(response.details.files ?? []) as HookFileResult[]);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => timer = setTimeout(resolve, withinMs));
  await Promise.race([Promise.all(asked), enough, late]);
  clearTimeout(timer);
  await Promise.all(
    [...pending].map((id) => session.handle({ id: `${id}-cancel`, action: "cancel", target: id })),
  );
  return answered.filter((r) => r.status === "ok");
}

function signature(d: DiagnosticView): string {
  return `${d.line}:${d.column}:${d.code ?? ""}:${d.message}`;
}

/** The edited files a hook payload names, or what is wrong with the payload. */
export function parsePayload(text: string): string[] | string {
  const payload = readPayload(text);
  return typeof payload === "string" ? payload : payload.files;
}

/** What a hook payload says (files, session, event), or what is wrong with it. */
export function readPayload(text: string): HookPayload | string {
  if (text.trim() === "") {
    return "no hook payload on stdin; expected one such as " +
      '{"tool_input": {"file_path": "/abs/path.ts"}}, or file paths as arguments';
  }
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
  return {
    files: [...new Set(found.map((p) => cwd && !isAbsolute(p) ? resolve(cwd, p) : p))],
    session: typeof payload.session_id === "string" && payload.session_id
      ? payload.session_id.slice(0, 200)
      : undefined,
    event: typeof payload.hook_event_name === "string" ? payload.hook_event_name : undefined,
    stopHookActive: payload.stop_hook_active === true,
  };
}

/**
 * The paths that resolve to files inside the workspace, deduplicated. Outside and missing files
 * are skipped quietly (not the workspace's, or deleted by the edit); any other problem is a file
 * not checked.
 */
async function filesToCheck(
  session: Gate,
  paths: string[],
): Promise<{ files: string[]; unchecked: string[] }> {
  const files = new Set<string>();
  const unchecked: string[] = [];
  for (const path of paths) {
    try {
      files.add(await session.workspace.resolve(path));
    } catch (error) {
      const e = toLspGateError(error);
      if (e.code === "OUTSIDE_WORKSPACE" || e.code === "FILE_NOT_FOUND") continue;
      unchecked.push(`${path} (${oneLine(`${e.code}: ${e.message}`, MAX_REASON_CHARS)})`);
    }
  }
  return { files: [...files], unchecked };
}

/**
 * What the hook says about diagnostics results (see runHook): exit 2 with the report on stderr
 * when there are errors; else 0, warnings on stdout and at most one `lspgate hook:` line on
 * stderr naming the files that could not be checked (and, from `unchecked`, why).
 */
export function hookReport(results: HookFileResult[], unchecked: string[] = []): HookReport {
  const errors: string[] = [];
  const warnings: string[] = [];
  const notChecked = [...unchecked];
  for (const result of results) {
    for (const d of result.diagnostics) {
      (d.severity === "error" ? errors : warnings).push(diagnosticLine(result.file, d));
    }
    const reason = result.status !== "ok"
      ? `${result.status}: ${result.message ?? "no reason given"}`
      : result.syntaxOnly
      ? `syntax only: ${result.reason ?? "no language server could run"}`
      : undefined;
    // A file whose syntax errors were found was checked as far as it matters.
    const found = result.diagnostics.some((d) => d.severity === "error");
    if (reason && !found) notChecked.push(`${result.file} (${oneLine(reason, MAX_REASON_CHARS)})`);
  }
  const files = new Set(results.filter((r) => r.diagnostics.length).map((r) => r.file)).size;
  const head =
    `lspgate: ${count(errors.length, "error")}, ${count(warnings.length, "warning")} in ` +
    `${count(files, "edited file")}:`;
  // Errors first, so a cut report still has every error it can.
  const list = bounded([head, ...listed([...errors, ...warnings])]);
  const skipped = notChecked.length
    ? oneLine(notChecked.join("; "), MAX_NOTE_CHARS - 40)
    : undefined;
  if (errors.length > 0) {
    return { code: 2, stdout: "", stderr: skipped ? `${list}\nnot checked: ${skipped}` : list };
  }
  return {
    code: 0,
    stdout: warnings.length > 0 ? list : "",
    stderr: skipped
      ? `lspgate hook: could not check ${count(notChecked.length, "file")}: ${skipped}`
      : "",
  };
}

function diagnosticLine(file: string, d: DiagnosticView): string {
  const code = d.code !== undefined ? ` [${[d.source, d.code].filter(Boolean).join(" ")}]` : "";
  let lines = d.message.trim().split("\n");
  if (lines.length > MAX_MESSAGE_LINES) {
    lines = [
      ...lines.slice(0, MAX_MESSAGE_LINES),
      `… (${lines.length - MAX_MESSAGE_LINES} more lines)`,
    ];
  }
  let message = lines.join("\n    ");
  if (message.length > MAX_MESSAGE_CHARS) message = `${message.slice(0, MAX_MESSAGE_CHARS)}…`;
  return `${file}:${d.line}:${d.column} ${d.severity}${code}: ${message}`;
}

function listed(lines: string[]): string[] {
  if (lines.length <= MAX_REPORT_LINES) return lines;
  return [...lines.slice(0, MAX_REPORT_LINES), `… and ${lines.length - MAX_REPORT_LINES} more`];
}

/** The lines joined, cut at a line boundary to MAX_REPORT_CHARS. */
function bounded(lines: string[]): string {
  let text = lines[0];
  for (let i = 1; i < lines.length; i++) {
    if (text.length + 1 + lines[i].length > MAX_REPORT_CHARS) {
      return `${text}\n… and ${
        lines.length - i
      } more (report cut at ${MAX_REPORT_CHARS} characters)`;
    }
    text += `\n${lines[i]}`;
  }
  return text;
}

/** `text` on one line (whitespace runs folded to one space), cut to `max` characters. */
function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
