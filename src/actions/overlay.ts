// Diagnostics of proposed texts, from the servers' view of them: the proposed text stands in the
// server's view of a file (never on disk) while the file is held, then the disk's text is put back.
import { LspGateError, toLspGateError } from "../errors.ts";
import { TextLines } from "../lsp/text_lines.ts";
import type { WorkspacePath } from "../permissions/workspace.ts";
import type { Lease, OverlayLock } from "../servers/manager.ts";
import { diagnose, type DiagnosticSources, type DiagnosticView } from "./diagnostics.ts";
import type { FileDiagnostics } from "./diagnostics.ts";
import { queryDocument } from "./document.ts";
import { escapeRegExp, nameAsWord } from "../../adapters/name_coverage.ts";
import type { ActionContext } from "./types.ts";

/** A file and the text proposed for it. */
export interface Proposal {
  path: WorkspacePath;
  text: string;
  /** The text the proposal was made against: the file must still hold it (else EDIT_CONFLICT). */
  base?: string;
}

/** One file's diagnostics as it is and with the proposals in place. */
export interface OverlayOutcome {
  path: WorkspacePath;
  /** The file as it is on disk, and as proposed (the same for a file checked alongside). */
  disk: string;
  proposed: string;
  /** True for a file given a proposal, false for one checked alongside (an importer). */
  proposal: boolean;
  before: FileDiagnostics;
  after: FileDiagnostics;
}

/** What is new and what is gone, a diagnostic being the same when all but its place is. */
export interface DiagnosticChanges {
  added: (DiagnosticView & { file: string })[];
  removed: (DiagnosticView & { file: string })[];
  unchanged: number;
  /** Files whose diagnostics were not had both ways (timeout, error), so are not compared. */
  unknown: string[];
}

/** Options of underOverlay(). */
export interface OverlayOptions {
  /** Files checked alongside the proposals, unchanged (the files that import them). */
  alongside?: readonly WorkspacePath[];
  timeoutMs: number;
  /** Least severe level reported, as a rank. */
  minimum: number;
  /** A lease this request holds on one of the files: it gives its hold up for the overlay. */
  yielding?: Lease;
}

/**
 * The diagnostics of each proposed file, and of the files alongside, as the files are and with
 * every proposal in place together. The files are held while it runs (other requests for them
 * wait); the disk is never written; the servers get the disk's text back before the hold ends,
 * also on failure, timeout or cancel. A file alongside that no server handles is left out.
 */
export async function underOverlay(
  context: ActionContext,
  proposals: readonly Proposal[],
  options: OverlayOptions,
): Promise<OverlayOutcome[]> {
  const proposed = new Set<string>(proposals.map((p) => p.path));
  const alongside = (options.alongside ?? []).filter((p) => !proposed.has(p));
  const lock = await context.manager.lockDocuments([...proposed, ...alongside], {
    signal: context.signal,
    timeoutMs: context.timeoutMs,
    yielding: options.yielding,
  });
  const leases: Lease[] = [];
  try {
    // Every lease is in `leases` before any failure is thrown, so the finally releases them all.
    const opened = await Promise.allSettled([
      ...proposals.map((p) => open(context, lock, leases, p.path, p)),
      ...alongside.map((path) => open(context, lock, leases, path)),
    ]);
    const files = [];
    for (const [i, result] of opened.entries()) {
      if (result.status === "fulfilled") {
        files.push(result.value);
        continue;
      }
      const code = toLspGateError(result.reason).code;
      // A file alongside that no server answers for (or one gone meanwhile) is not checked.
      const skip = i >= proposals.length && (code === "NO_SERVER" || code === "FILE_NOT_FOUND");
      if (!skip) throw result.reason;
    }
    const ask = { timeoutMs: options.timeoutMs, minimum: options.minimum };
    const before = await Promise.all(
      files.map((f) => diagnose(context, f.doc, f.linters, ask)),
    );
    // A request cancelled while the disk's diagnostics were awaited puts nothing in place.
    if (context.signal.aborted) throw new LspGateError("CANCELLED", "the request was cancelled");
    for (const file of files) {
      if (file.proposal === undefined) continue;
      for (const lease of [file.doc.lease, ...file.linters.leases]) {
        await lock.overlay(lease, file.proposal.text);
      }
    }
    const after = await Promise.all(files.map((f) =>
      diagnose(context, f.doc, f.linters, {
        ...ask,
        lines: f.proposal ? new TextLines(f.proposal.text) : undefined,
      })
    ));
    return files.map((f, i) => ({
      path: f.doc.path,
      disk: f.doc.lease.text,
      proposed: f.proposal?.text ?? f.doc.lease.text,
      proposal: f.proposal !== undefined,
      before: before[i],
      after: after[i],
    }));
  } finally {
    try {
      await lock.release();
    } finally {
      for (const lease of leases) lease.release();
    }
  }
}

/** Leases `path` (and, for a proposal, its linters) under `lock`, synced with the disk. */
async function open(
  context: ActionContext,
  lock: OverlayLock,
  leases: Lease[],
  path: WorkspacePath,
  proposal?: Proposal,
) {
  const lease = await context.manager.acquire(path, context.signal, { lock });
  leases.push(lease);
  if (proposal?.base !== undefined && lease.text !== proposal.base) {
    throw new LspGateError(
      "EDIT_CONFLICT",
      `${context.workspace.relative(path)} changed on disk since the edit was computed; nothing ` +
        "was checked or written. Ask again.",
      { file: context.workspace.relative(path) },
    );
  }
  // A file alongside keeps its linters' word as it was: they judge one file at a time.
  const linters: DiagnosticSources = proposal
    ? await context.manager.acquireLinters(path, context.signal, { lock })
    : { leases: [], failures: [] };
  leases.push(...linters.leases);
  return { doc: queryDocument(context, path, lease), linters, proposal };
}

/**
 * What the proposals add and remove, file by file. Two diagnostics are the same when their
 * severity, source, code, message and the text they cover are (their lines may have moved).
 */
export function compareOutcomes(
  outcomes: readonly OverlayOutcome[],
  renamed?: Renamed,
): DiagnosticChanges {
  const changes: DiagnosticChanges = { added: [], removed: [], unchanged: 0, unknown: [] };
  for (const outcome of outcomes) {
    const file = outcome.after.file;
    if (outcome.before.status !== "ok" || outcome.after.status !== "ok") {
      changes.unknown.push(file);
      continue;
    }
    const diff = compareDiagnostics(
      { text: outcome.disk, diagnostics: outcome.before.diagnostics },
      { text: outcome.proposed, diagnostics: outcome.after.diagnostics },
      renamed,
    );
    changes.added.push(...diff.added.map((d) => ({ file, ...d })));
    changes.removed.push(...diff.removed.map((d) => ({ file, ...d })));
    changes.unchanged += diff.unchanged;
  }
  return changes;
}

/** A rename's old and new name: a diagnostic that only names the new one is the same as before. */
export interface Renamed {
  from: string;
  to: string;
}

/**
 * The diagnostics of `after` not in `before`, those of `before` not in `after`, and the rest. After
 * a rename, each of `after`'s is also read with the new name put back: the error a call had before
 * (TS2554 on `greet()`) is the same error on `salute()`, not one the rename added and one it
 * cleared. Where it is put back is tried in turn (see readingsBack), the text as it is first.
 */
export function compareDiagnostics(
  before: { text: string; diagnostics: readonly DiagnosticView[] },
  after: { text: string; diagnostics: readonly DiagnosticView[] },
  renamed?: Renamed,
): { added: DiagnosticView[]; removed: DiagnosticView[]; unchanged: number } {
  const beforeLines = new TextLines(before.text);
  const afterLines = new TextLines(after.text);
  const waiting = new Map<string, DiagnosticView[]>();
  for (const d of before.diagnostics) {
    const key = identity(d, d.message, covered(d, beforeLines));
    waiting.set(key, [...(waiting.get(key) ?? []), d]);
  }
  const added: DiagnosticView[] = [];
  let unchanged = 0;
  const back = renamed && renamed.from !== renamed.to ? readingsBack(renamed) : undefined;
  for (const d of after.diagnostics) {
    const text = covered(d, afterLines);
    const keys = back
      ? back(d.message, text).map(([message, code]) => identity(d, message, code))
      : [identity(d, d.message, text)];
    const same = keys.map((key) => waiting.get(key)).find((list) => list?.length);
    if (same) {
      same.shift();
      unchanged++;
    } else added.push(d);
  }
  const removed = [...waiting.values()].flat()
    .sort((a, b) => a.line - b.line || a.column - b.column);
  return { added, removed, unchanged };
}

function identity(d: DiagnosticView, message: string, text: string): string {
  return JSON.stringify([d.severity, d.source ?? "", d.code ?? "", message, text]);
}

/**
 * The ways a diagnostic after a rename may read as it did before, most literal first: as it is
 * (renaming `label` to `name` leaves "Property 'name' does not exist" about another `name`
 * alone); the new name put back in the code it covers; and in its message where quoted
 * (`'salute'`, TypeScript, pyright), then anywhere as a word (`declared and not used: total`,
 * gopls). A message's own words may be the new name (renaming `kind` to `type`: "… on type '{…}'"),
 * which the readings before that keep as they are.
 */
function readingsBack({ from, to }: Renamed) {
  const word = nameAsWord(to, "g");
  const quoted = new RegExp(`(['"\`])${escapeRegExp(to)}\\1`, "g");
  // Functions as replacements: a `$` in a name is no replacement pattern.
  const asWord = (text: string) => text.replace(word, () => from);
  const asQuoted = (text: string) => text.replace(quoted, (_, q: string) => `${q}${from}${q}`);
  return (message: string, code: string): [string, string][] => [
    [message, code],
    [message, asWord(code)],
    [asQuoted(message), asWord(code)],
    [asWord(message), asWord(code)],
    [asQuoted(message), code],
  ];
}

/** The text a diagnostic's range covers (at most 200 characters). */
function covered(d: DiagnosticView, lines: TextLines): string {
  const parts: string[] = [];
  for (let line = d.line; line <= d.endLine && parts.join("\n").length < 200; line++) {
    const chars = [...lines.line(line - 1)];
    const from = line === d.line ? d.column - 1 : 0;
    const to = line === d.endLine ? d.endColumn - 1 : chars.length;
    parts.push(chars.slice(from, Math.max(from, to)).join(""));
  }
  return parts.join("\n").slice(0, 200);
}
