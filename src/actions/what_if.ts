// What-if diagnostics: what the server would report if a file held a proposed text, and what is
// new or gone compared with the file as it is, for the file and the files that import it. A read
// action: the disk is never written, and the server's view is the disk's again afterwards.
import { LspGateError } from "../errors.ts";
import { boundText, plural } from "../format/bound.ts";
import type { WorkspacePath } from "../permissions/workspace.ts";
import type { DiagnosticView, FileDiagnostics } from "./diagnostics.ts";
import { resolveFile } from "./document.ts";
import { findImporters, type ImporterSearch } from "./importers.ts";
import {
  compareOutcomes,
  type DiagnosticChanges,
  type OverlayOutcome,
  underOverlay,
} from "./overlay.ts";
import { syntaxDiagnostics, withSyntaxNote } from "./syntax_only.ts";
import { type AgentTextEdit, applyAgentEdits } from "./text_edits.ts";
import type { ActionContext, ActionResult } from "./types.ts";

/** A what-if request: one file and the text proposed for it, whole or as edits. */
export interface WhatIfInput {
  file: string;
  content?: string;
  edits?: AgentTextEdit[];
}

/**
 * What the servers would report for `file` holding the proposed text, and for the files that
 * import it, compared with the file as it is (`details.whatIf`). With no server for the file,
 * the parse errors of both texts (syntax only).
 */
export async function whatIfDiagnostics(
  context: ActionContext,
  input: WhatIfInput,
  options: { timeoutMs: number; minimum: number; severity?: string },
): Promise<ActionResult> {
  if (input.file === "*" || /[*?[{]/.test(input.file)) {
    throw new LspGateError(
      "INVALID_INPUT",
      'content and edits propose a text for one file: give file as a path, not a glob or "*".',
    );
  }
  const path = await resolveFile(context, input.file);
  const disk = await context.workspace.readText(path);
  const text = input.content ?? applyAgentEdits(disk, input.edits ?? []);
  let outcomes: OverlayOutcome[];
  let search: ImporterSearch = { importers: [], unchecked: [] };
  try {
    search = await findImporters(context, path);
    outcomes = await underOverlay(
      context,
      // Edits were made against the text read here: the file must still hold it.
      [{ path, text, base: input.edits ? disk : undefined }],
      {
        alongside: search.importers,
        timeoutMs: options.timeoutMs,
        minimum: options.minimum,
      },
    );
  } catch (error) {
    // No server can run for the file: the parser's word on both texts (or the error again).
    const before = await syntaxDiagnostics(context, path, error, disk);
    const after = await syntaxDiagnostics(context, path, error, text);
    outcomes = [{ path, disk, proposed: text, proposal: true, before, after }];
  }
  const answer = render(context, path, outcomes, options.severity, search);
  return withSyntaxNote(answer, outcomes.map((o) => o.after));
}

function render(
  context: ActionContext,
  path: WorkspacePath,
  outcomes: OverlayOutcome[],
  severity: string | undefined,
  search: ImporterSearch,
): ActionResult {
  const rel = context.workspace.relative(path);
  const changes = compareOutcomes(outcomes);
  const importers = outcomes.filter((o) => !o.proposal).map((o) => o.after.file);
  const filter = severity && severity !== "hint" ? ` at ${severity} or worse` : "";
  const parts = [
    `What if ${rel} held the proposed text${filter}: ${summary(changes)} ` +
    `(nothing was written; the server's view of ${rel} is the file on disk again).`,
  ];
  if (changes.added.length) {
    parts.push("New:", ...changes.added.map((d) => `  ${d.file}:${line(d)}`));
  }
  if (changes.removed.length) {
    parts.push(
      "Gone (positions in the file as it is):",
      ...changes.removed.map((d) => `  ${d.file}:${line(d)}`),
    );
  }
  parts.push("All diagnostics with the proposed text:");
  for (const outcome of outcomes) {
    parts.push(...fileLines(outcome, rel));
  }
  if (changes.unknown.length) {
    parts.push(
      `Not compared (a server did not answer both ways): ${changes.unknown.join(", ")}; ask again.`,
    );
  }
  // Complete means every file that can see the changed one was checked: else it says which not.
  if (search.unchecked.length) {
    parts.push(
      `Not checked (more importers than the ${search.importers.length} checked): ` +
        `${search.unchecked.join(", ")}; ask about them as files.`,
    );
  }
  if (search.incomplete) {
    parts.push(`Not every file was searched for importers: ${search.incomplete}.`);
  }
  const elsewhere = search.elsewhere ?? [];
  if (elsewhere.length) {
    parts.push(
      `Not checked (in another project, whose server reads ${rel} from the disk, not the ` +
        `proposed text): ${elsewhere.join(", ")}; ask about them after writing the change.`,
    );
  }
  const unresolved = search.unresolved ?? [];
  if (unresolved.length) {
    const named = unresolved.slice(0, 10).map((u) => `"${u.specifier}" (${u.file})`);
    const more = unresolved.length > 10 ? ` and ${unresolved.length - 10} more` : "";
    parts.push(
      `Maybe not every importer was found: lspgate could not resolve ${named.join(", ")}${more}, ` +
        `which may name ${rel} or a file passing it on; their files count as possible importers.`,
    );
  }
  const complete = changes.unknown.length === 0 && search.unchecked.length === 0 &&
    search.incomplete === undefined && unresolved.length === 0 && elsewhere.length === 0;
  const files = outcomes.map((o) => o.after);
  return {
    text: boundText(parts.join("\n")).text,
    details: {
      files,
      total: files.reduce((n, f) => n + f.diagnostics.length, 0),
      truncated: false,
      whatIf: {
        file: rel,
        added: changes.added,
        removed: changes.removed,
        unchanged: changes.unchanged,
        importers,
        complete,
        ...(changes.unknown.length ? { unknown: changes.unknown } : {}),
        ...(search.unchecked.length ? { unchecked: search.unchecked } : {}),
        ...(search.incomplete ? { incomplete: search.incomplete } : {}),
        ...(unresolved.length ? { unresolved } : {}),
        ...(elsewhere.length ? { elsewhere } : {}),
      },
    },
  };
}

function summary(changes: DiagnosticChanges): string {
  return `${plural(changes.added.length, "new diagnostic")}, ${changes.removed.length} gone, ` +
    `${changes.unchanged} unchanged`;
}

function fileLines(outcome: OverlayOutcome, rel: string): string[] {
  const after: FileDiagnostics = outcome.after;
  const label = outcome.proposal ? `${after.file} (proposed)` : `${after.file} (imports ${rel})`;
  if (after.status !== "ok") return [`${label}: ${after.status} — ${after.message ?? ""}`.trim()];
  const note = after.message ? `\n  (not heard from ${after.message})` : "";
  if (after.diagnostics.length === 0) return [`${label}: no diagnostics.${note}`];
  return [
    `${label}: ${counts(after.diagnostics)}`,
    ...after.diagnostics.map((d) => `  ${line(d)}`),
    ...(note ? [note.slice(1)] : []),
  ];
}

/** `3:7 error ts 2322: message`, as the diagnostics answer writes one. */
export function line(d: DiagnosticView): string {
  const origin = [d.source, d.code].filter((x) => x !== undefined && x !== "").join(" ");
  return `${d.line}:${d.column} ${d.severity}${origin ? ` ${origin}` : ""}: ` +
    d.message.replace(/\n/g, "\n    ");
}

function counts(diagnostics: DiagnosticView[]): string {
  const by = new Map<string, number>();
  for (const d of diagnostics) by.set(d.severity, (by.get(d.severity) ?? 0) + 1);
  return [...by].map(([severity, n]) => plural(n, severity)).join(", ");
}
