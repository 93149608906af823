// What the post-edit hook prints: the report of errors and warnings, bounded, and its exit code.
import type { DiagnosticView, FileDiagnostics } from "../actions/diagnostics.ts";

/** What the hook prints and its exit code, before it is printed. */
export interface HookReport {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

/** A file's diagnostics as the diagnostics action gives them, syntax-only ones included. */
export type HookFileResult = FileDiagnostics & { syntaxOnly?: boolean; reason?: string };

const MAX_REPORT_LINES = 60;
const MAX_MESSAGE_LINES = 4;
const MAX_MESSAGE_CHARS = 400;
const MAX_REPORT_CHARS = 20_000;
/** Longest `lspgate hook: …` line. */
export const MAX_NOTE_CHARS = 1_000;
/** Longest reason a file was not checked. */
export const MAX_REASON_CHARS = 200;

/**
 * What the hook says about diagnostics results (see runHook): exit 2 with the report on stderr
 * when there are errors (in the edited files, or caused by the edit in `importers`, which are
 * listed after them and never counted as edited); else 0, warnings on stdout and at most one
 * `lspgate hook:` line on stderr naming the files that could not be checked (and, from
 * `unchecked`, why).
 */
export function hookReport(
  results: HookFileResult[],
  unchecked: string[] = [],
  importers: { file: string; caused: DiagnosticView[] }[] = [],
): HookReport {
  const errors: string[] = [];
  const warnings: string[] = [];
  const notChecked = [...unchecked];
  // The edited files checked, a clean one too ("0 errors … in 1 edited file"; errors it caused
  // are counted apart), not just those with findings.
  const checked = new Set<string>();
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
    // Its warnings are counted: so is the file.
    if (!reason || result.diagnostics.length) checked.add(result.file);
  }
  const caused = importers.flatMap((i) => i.caused.map((d) => diagnosticLine(i.file, d)));
  const files = checked.size;
  const elsewhere = caused.length
    ? `; ${count(caused.length, "error")} it caused in ${
      count(importers.filter((i) => i.caused.length).length, "importing file")
    }`
    : "";
  const head =
    `lspgate: ${count(errors.length, "error")}, ${count(warnings.length, "warning")} in ` +
    `${count(files, "edited file")}${elsewhere}:`;
  // Errors first, so a cut report still has every error it can.
  const list = bounded([head, ...listed([...errors, ...caused, ...warnings])]);
  const skipped = notChecked.length
    ? oneLine(notChecked.join("; "), MAX_NOTE_CHARS - 40)
    : undefined;
  if (errors.length + caused.length > 0) {
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
export function oneLine(text: string, max: number): string {
  // Other control characters (a NUL in a crafted path) are shown escaped, never written raw.
  const line = text.replace(/\s+/g, " ").trim().replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
