// Checked edits: a rename, format or code action checked before it is written — the diagnostics
// the edit would add across the files it touches, from the servers' view of the edited texts
// (the disk untouched, the views restored); `if_clean` writes only when it adds no error.
import * as z from "../zod.ts";
import { plural } from "../format/bound.ts";
import { severityRank } from "../format/kinds.ts";
import { applyEdits } from "../lsp/positions.ts";
import type { Lease } from "../servers/manager.ts";
import type { DiagnosticView } from "./diagnostics.ts";
import { compareOutcomes, type Proposal, type Renamed, underOverlay } from "./overlay.ts";
import type { ActionContext, ActionResult } from "./types.ts";
import { line } from "./what_if.ts";
import type { EditPlan } from "./workspace_edit.ts";

/** The `check` and `if_clean` fields of the edit actions. */
export const checkFields = {
  check: z.optional(z.boolean()),
  if_clean: z.optional(z.boolean()),
};

/** What the action table says of `check` and `if_clean`. */
export const CHECK_SUMMARY =
  "check: true also shows the diagnostics the edit would add; apply + if_clean: true writes only " +
  "if it adds no error.";

/** `if_clean` only means something with `apply: true`. */
export const ifCleanNeedsApply = [
  (v: { apply?: boolean; if_clean?: boolean }) => v.if_clean !== true || v.apply === true,
  "if_clean goes with apply: true (it writes only if the edit adds no error); for a preview " +
  "with its check, send check: true",
] as const;

/** What an edit would do to the diagnostics of the files it touches. */
export interface EditCheck {
  added: (DiagnosticView & { file: string })[];
  removed: (DiagnosticView & { file: string })[];
  unchanged: number;
  /** The files checked, and the ones touched but not (no server for them, or too many). */
  files: string[];
  unchecked: string[];
  /** Every file a server handles was checked, and answered both ways. */
  complete: boolean;
  /** Complete, and no error added: what `if_clean` needs to write. */
  clean: boolean;
}

/** Most files one check puts under overlay. */
const MAX_CHECKED_FILES = 32;

/**
 * The check `check: true` or `if_clean: true` asks for, or undefined when neither does: every
 * file the plan edits (up to MAX_CHECKED_FILES) as edited, in its server's view together, against
 * the file as it is. `lease` is the caller's lease on the file it asked about: it gives its hold
 * on that file up to the check.
 */
export async function checkEdit(
  context: ActionContext,
  plan: EditPlan,
  input: { check?: boolean; if_clean?: boolean },
  lease: Lease,
  renamed?: Renamed,
): Promise<EditCheck | undefined> {
  if (!input.check && !input.if_clean) return undefined;
  const edited = plan.files.filter((f) => f.edits.length > 0);
  const served = await Promise.all(edited.map((f) => context.manager.pick(f.path)));
  const checkable = edited.filter((_, i) => served[i] !== undefined);
  const proposals: Proposal[] = checkable.slice(0, MAX_CHECKED_FILES).map((f) => ({
    path: f.path,
    text: applyEdits(f.before, f.edits, plan.encoding),
    base: f.before,
  }));
  const unchecked = edited.filter((f) => !proposals.some((p) => p.path === f.path))
    .map((f) => context.workspace.relative(f.path));
  const outcomes = proposals.length
    ? await underOverlay(context, proposals, {
      timeoutMs: context.timeoutMs,
      minimum: severityRank("hint"),
      yielding: lease,
    })
    : [];
  const changes = compareOutcomes(outcomes, renamed);
  const complete = changes.unknown.length === 0 && checkable.length <= MAX_CHECKED_FILES;
  return {
    added: changes.added,
    removed: changes.removed,
    unchanged: changes.unchanged,
    files: outcomes.map((o) => o.after.file),
    unchecked: [...unchecked, ...changes.unknown],
    complete,
    clean: complete && !changes.added.some((d) => d.severity === "error"),
  };
}

/** Whether an apply may write: no `if_clean`, or a clean check. */
export function mayWrite(input: { apply?: boolean; if_clean?: boolean }, check?: EditCheck) {
  return input.apply === true && (input.if_clean !== true || check?.clean === true);
}

/**
 * An edit answer with its check: the diagnostics the edit adds and removes, and, for an
 * `if_clean` apply that was refused, first of all that nothing was written and why.
 */
export function withCheck(
  answer: ActionResult,
  check: EditCheck | undefined,
  input: { apply?: boolean; if_clean?: boolean },
): ActionResult {
  if (!check) return answer;
  const errors = check.added.filter((d) => d.severity === "error").length;
  const refused = input.apply === true && input.if_clean === true && !check.clean;
  const parts: string[] = [];
  if (refused) {
    parts.push(
      errors
        ? `Not applied: the edit would add ${plural(errors, "error")}, so nothing was written ` +
          "(if_clean).\n"
        : "Not applied: the edit could not be checked in full " +
          `(${check.unchecked.join(", ")}), so nothing was written (if_clean).\n`,
    );
  }
  parts.push(answer.text, "", checkText(check));
  return {
    text: parts.join("\n"),
    details: { ...answer.details, check, ...(refused ? { refused: true } : {}) },
  };
}

function checkText(check: EditCheck): string {
  const files = plural(check.files.length, "file");
  const head = check.added.length
    ? `Check: the edit would add ${plural(check.added.length, "diagnostic")} in the ${files} ` +
      `it touches${check.removed.length ? ` and clear ${check.removed.length}` : ""}:`
    : `Check: the edit adds no diagnostics in the ${files} it touches` +
      (check.removed.length ? ` and clears ${check.removed.length}.` : ".");
  const lines = [head, ...check.added.map((d) => `  ${d.file}:${line(d)}`)];
  if (check.unchecked.length) {
    lines.push(
      `Not checked: ${check.unchecked.join(", ")} (no language server for it, no answer, or ` +
        `more than ${MAX_CHECKED_FILES} files).`,
    );
  }
  return lines.join("\n");
}
