import { toLspGateError } from "../errors.ts";
import { boundDelay } from "../lsp/client_util.ts";
import type { DiagnosticView } from "../actions/diagnostics.ts";
import type { Gate } from "./gate.ts";
import { causedByEdit, type ImporterErrors, importerErrors, textBefore } from "./hook_importers.ts";
import { readTurn, touch, updateTurn } from "./turn_state.ts";
import {
  type HookFileResult,
  type HookReport,
  hookReport,
  MAX_NOTE_CHARS,
  MAX_REASON_CHARS,
  oneLine,
} from "./hook_report.ts";

export { type HookFileResult, type HookReport, hookReport } from "./hook_report.ts";
import { type HookPayload, readPayload } from "./hook_payload.ts";

export { type HookPayload, parsePayload, readPayload } from "./hook_payload.ts";

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

const MAX_FILES_PER_REQUEST = 64;
// How long importers may take after the edited files have answered.
const IMPORTER_GRACE_MS = 300;
// What a what-if leaves of the deadline: its cancel, the turn's record and the report (a helper
// saw the hook give up, the edited file's errors in hand, when the what-if took all of it).
const WHAT_IF_MARGIN_MS = 300;
// Claude Code stops a hook after 60 s; a hook that answers first says why it gave up.
const DEADLINE_MS = 50_000;
// How long a hook past its deadline still waits for its files to be remembered for the turn.
const REMEMBER_MS = 2_000;

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
 * The session is closed in every case. Claude Code's settings: see the README (SessionStart,
 * PostToolUse with the matcher `Edit|MultiEdit|Write|Read`, Stop), every command under the grant
 * of `deno task start`.
 */
export async function runHook(
  session: Gate,
  args: string[],
  options: HookOptions = {},
): Promise<number> {
  const deadlineMs = options.deadlineMs ?? DEADLINE_MS;
  // Bounds on waits the session keeps alive (the daemon's socket, or the servers' pipes), on
  // timers that load nothing: a hook runs after every edit, and Deno's setTimeout loads Node's
  // timers at its first use (6–9 ms).
  const over = new AbortController();
  const expired = boundDelay(deadlineMs, over.signal).then(() => "expired" as const);
  try {
    let remembered!: () => void;
    const memory = new Promise<void>((resolve) => remembered = resolve);
    const run: HookRun = { expired: false, remembered };
    const checked = check(session, args, options, run);
    checked.then(remembered, remembered);
    let outcome = await Promise.race([checked, expired]);
    // A Stop already forgetting its files reports them, deadline or not.
    if (outcome === "expired" && run.committing) outcome = await run.committing;
    if (outcome === "expired") {
      run.expired = true;
      // The files are remembered for the end of the turn even so (a moment more, at most).
      await Promise.race([memory, boundDelay(REMEMBER_MS, over.signal)]);
      return hookFailure(
        `gave up after ${deadlineSeconds(options)} s: the diagnostics were not ready in time`,
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
    over.abort();
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

/** One hook run's state shared between runHook() and check(): the deadline, and commitments. */
interface HookRun {
  /** The deadline passed and the hook said it gave up. */
  expired: boolean;
  /** The touched files are recorded for the turn. */
  remembered: () => void;
  /** A Stop forgetting the files it reports: the hook reports them whatever the deadline. */
  committing?: Promise<HookReport | string>;
}

/** The report of a checked set of edited files, or (a string) lspgate's own failure. */
async function check(
  session: Gate,
  args: string[],
  options: HookOptions,
  run: HookRun = { expired: false, remembered: () => {} },
): Promise<HookReport | string> {
  const started = performance.now();
  let payload: HookPayload = { files: args };
  if (args.length === 0) {
    const terminal = !options.stdin && Deno.stdin.isTerminal();
    if (terminal && !options.event) return "give file paths, or a hook's JSON payload on stdin";
    const text = terminal ? "" : await new Response(options.stdin ?? Deno.stdin.readable).text();
    // `--event` alone says what to do (a warm-up needs nothing more); a payload adds to it.
    const read = options.event && text.trim() === "" ? { files: [] } : readPayload(text);
    if (typeof read === "string") return read;
    payload = read;
  }
  const root = session.workspace.path;
  const kind = options.event ?? EVENTS[payload.event ?? ""] ??
    (READ_TOOLS.has(payload.tool ?? "") ? "read" : "post");
  if (kind === "session-start") {
    // A query outside ASCII: the word index that leaves a server unstarted when none of its
    // files could match tests ASCII queries only (symbol_prefilter.ts), so every server starts;
    // and none names such a symbol, so each answers at once. "lspgate-warm-up" started no pyright
    // (a helper's find): no Python file held those letters in order.
    return await warm(session, started, options, {
      action: "symbols",
      file: "*",
      query: "lspgate·warm·up",
    });
  }
  if (kind === "read") {
    // The agent read a file (Claude Code's Edit needs a Read first): its server opens it now.
    const { files } = await filesToCheck(session, payload.files);
    if (files.length === 0) return { code: 0, stdout: "", stderr: "" };
    return await warm(session, started, options, { action: "diagnostics", files });
  }
  if (kind === "stop") {
    if (!payload.session) return "the end-of-turn report needs the payload's session_id";
    // The turn is over: what it touched is reported once, then forgotten (a Stop that gives up
    // at its deadline forgets nothing: the next one reports them).
    const ended = await readTurn(payload.session, root);
    if (ended.touched.length === 0) return { code: 0, stdout: "", stderr: "" };
    const { files, unchecked } = await filesToCheck(session, ended.touched);
    const results = await diagnosticsOf(session, files);
    if (typeof results === "string") return results;
    const sessionId = payload.session;
    const report = hookReport(results, unchecked);
    // Already continuing because of a stop hook: say it, but let the agent stop.
    const said = report.code === 2 && payload.stopHookActive
      ? { code: 0 as const, stdout: report.stderr, stderr: "" }
      : report;
    // Given up meanwhile: nothing was said, so nothing is forgotten. Else what is said is
    // forgotten, and the hook waits for that even past its deadline (set in one step: no await
    // between the check and the commitment).
    if (run.expired) return "gave up";
    run.committing = updateTurn(sessionId, root, (now) => ({
      ...now,
      touched: now.touched.filter((f) => !ended.touched.includes(f)),
    })).then(() => said);
    return await run.committing;
  }
  const { files, unchecked } = await filesToCheck(session, payload.files);
  const edited = files.map((f) => session.workspace.relative(f));
  // Remembered first: a hook that gives up at its deadline still has its files in the turn's
  // end-of-turn report.
  const turn = payload.session
    ? await updateTurn(payload.session, root, (now) => touch(now, edited))
    : undefined;
  run.remembered();
  // The files that import an edited one: an edit that breaks a caller elsewhere is reported, and
  // only the errors the edit caused (see hook_importers.ts).
  const deadline = started + (options.deadlineMs ?? DEADLINE_MS) - 100;
  const before = files.length === 1 && (payload.original !== undefined || payload.edit)
    ? textBefore(payload, await readNow(session, files[0]))
    : undefined;
  let results: HookFileResult[] | string;
  let importers: ImporterErrors[] = [];
  if (before !== undefined) {
    // The what-if holds the edited file while it runs: asked once the file's own answer is in.
    results = await diagnosticsOf(session, files);
    const left = deadline - WHAT_IF_MARGIN_MS - performance.now();
    if (typeof results !== "string") {
      const compared = left > 0
        ? await causedByEdit(session, edited[0], before, left)
        : { importers: [], unchecked: `the hook's ${deadlineSeconds(options)} s had run out` };
      importers = compared.importers;
      // Not compared is not clean: an edit that broke a caller must not read "0 errors".
      if (compared.unchecked) {
        unchecked.push(`the files importing ${edited[0]} (${compared.unchecked})`);
      }
    }
  } else {
    // Each importer asked on its own beside the edited files; the ones not answered shortly
    // after those are left out: a broken caller answers fast, a clean one may only be confirmed
    // after a server's quiet window.
    let editedDone!: () => void;
    const done = new Promise<void>((resolve) => editedDone = resolve);
    const grace = done.then(() => boundDelay(IMPORTER_GRACE_MS));
    const left = deadline - performance.now();
    const asked = left > 0
      ? importerErrors(session, edited, left, grace)
      : Promise.resolve({ answered: [], unanswered: [] });
    results = await diagnosticsOf(session, files);
    editedDone();
    const { answered, unanswered } = await asked;
    // Not answered is not clean: said, as for a what-if.
    if (unanswered.length) {
      unchecked.push(
        `${unanswered.join(", ")} (they import ${edited.join(", ")}; no answer in time)`,
      );
    }
    importers = answered.map((found) => {
      // Caused by the edit: what differs from this session's last look at the importer; a first
      // look is only the baseline (its errors may well be older than the edit).
      const seen = turn?.reported[found.file];
      const known = new Set(seen ?? []);
      const caused = seen ? (found.now ?? []).filter((d) => !known.has(signature(d))) : [];
      return { ...found, caused };
    });
  }
  if (typeof results === "string") return results;
  const report = hookReport(results, unchecked, importers.filter((i) => i.caused.length));
  if (!payload.session) return report;
  // What this hook saw is remembered only with what it says (not after it gave up: the next
  // hook compares against what was last said).
  const reported: Record<string, string[]> = {};
  for (const found of importers) {
    if (found.now) reported[found.file] = found.now.map(signature);
  }
  for (const result of results) {
    reported[result.file] = result.diagnostics.filter((d) => d.severity === "error")
      .map(signature);
  }
  if (run.expired) return "gave up";
  run.committing = updateTurn(payload.session, root, (now) => ({
    ...now,
    reported: { ...now.reported, ...reported },
  })).then(() => report);
  return await run.committing;
}

/** The hook's deadline in seconds, as its messages say it. */
function deadlineSeconds(options: HookOptions): number {
  return (options.deadlineMs ?? DEADLINE_MS) / 1000;
}

/** The text of an edited file now ("" when it cannot be read). */
async function readNow(session: Gate, file: string): Promise<string> {
  try {
    return await session.workspace.readText(await session.workspace.resolve(file));
  } catch {
    return "";
  }
}

/** Claude Code's `hook_event_name`s, as the hook's kinds. */
const EVENTS: Record<string, string> = { Stop: "stop", SessionStart: "session-start" };
/** Tools whose post-use hook warms instead of checking. */
const READ_TOOLS = new Set(["Read"]);

/**
 * Warms the daemon for what comes next and says nothing: at the session's start, the workspace's
 * servers (a workspace symbol search starts one per project); on a Read, the file's server opens
 * it. Waits at most the deadline; what was started goes on after the hook exits.
 */
async function warm(
  session: Gate,
  started: number,
  options: HookOptions,
  request: Record<string, unknown>,
): Promise<HookReport> {
  const id = `hook-warm-${crypto.randomUUID()}`;
  const left = started + (options.deadlineMs ?? DEADLINE_MS) - 100 - performance.now();
  const answered = new AbortController();
  const late = boundDelay(Math.max(0, left), answered.signal);
  await Promise.race([session.handle({ ...request, id }), late]);
  answered.abort();
  return { code: 0, stdout: "", stderr: "" };
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

function signature(d: DiagnosticView): string {
  return `${d.line}:${d.column}:${d.code ?? ""}:${d.message}`;
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
