// The post-edit hook's look at the files importing an edited one: which of their errors the edit
// caused. With the edited file's text from before the edit (Claude Code's
// `tool_response.originalFile`, or its Edit's old and new strings), one what-if request compares
// the importers under both texts; without it, an importer's errors count as caused only when
// they differ from what this agent session saw of it before (a first sight is the baseline).
import { boundDelay } from "../lsp/client_util.ts";
import type { DiagnosticView } from "../actions/diagnostics.ts";
import type { Gate } from "./gate.ts";
import { findImporters } from "./importers.ts";

/** An importer's errors the edit caused (`file` workspace-relative), and all it has now. */
export interface ImporterErrors {
  file: string;
  /** The errors the edit caused (reported). */
  caused: DiagnosticView[];
  /** Every error the importer has now (remembered for the session); unknown after a what-if. */
  now?: DiagnosticView[];
}

const MAX_IMPORTERS = 16;

/** What a what-if found of the importers, and why some were not compared (unsaid: all were). */
export interface Compared {
  importers: ImporterErrors[];
  unchecked?: string;
}

/**
 * The importers' errors caused by the edit of `file` whose text before it was `before`: the
 * what-if of `file` holding `before` again; the errors of an importer that it would not have are
 * the edit's. `unchecked` says why when the answer did not come within `withinMs` (the request is
 * cancelled), failed, or left importers uncompared.
 */
export async function causedByEdit(
  gate: Gate,
  file: string,
  before: string,
  withinMs: number,
): Promise<Compared> {
  const id = `hook-what-if-${crypto.randomUUID()}`;
  // A bound that loads no timers (see runHook); the gate keeps the process alive meanwhile.
  const answered = new AbortController();
  const late = boundDelay(withinMs, answered.signal).then(() => undefined);
  const asked = gate.handle({
    id,
    action: "diagnostics",
    file,
    content: before,
    severity: "error",
  });
  const response = await Promise.race([asked, late]);
  answered.abort();
  if (!response) {
    await gate.handle({ id: `${id}-cancel`, action: "cancel", target: id });
    const seconds = Math.round(withinMs / 100) / 10;
    return { importers: [], unchecked: `the what-if comparing them took more than ${seconds} s` };
  }
  if (!response.ok) {
    return { importers: [], unchecked: `${response.error.code}: ${response.error.message}` };
  }
  const details = response.details as {
    files?: { file: string; status: string; diagnostics: DiagnosticView[] }[];
    whatIf?: {
      file: string;
      removed: (DiagnosticView & { file: string })[];
      importers: string[];
      unknown?: string[];
    };
  };
  const whatIf = details.whatIf;
  // No what-if: the file has no importer to compare (or its server cannot say).
  if (!whatIf) return { importers: [] };
  const unknown = new Set(whatIf.unknown ?? []);
  // `removed`: what the files have now and would not have with the old text — positions as now.
  const importers = whatIf.importers.filter((f) => !unknown.has(f)).map((importer) => ({
    file: importer,
    caused: whatIf.removed.filter((d) => d.file === importer && d.severity === "error")
      .map(({ file: _file, ...d }) => d),
  }));
  return unknown.size
    ? { importers, unchecked: `not compared: ${[...unknown].join(", ")}` }
    : { importers };
}

/**
 * The errors each importer of `files` has now, each asked on its own; what has not answered
 * within `withinMs`, or once `enough` settles, is cancelled and left out, named in `unanswered`.
 */
export async function importerErrors(
  gate: Gate,
  files: string[],
  withinMs: number,
  enough: Promise<void>,
): Promise<{ answered: ImporterErrors[]; unanswered: string[] }> {
  const found = new Set<string>();
  for (const file of files) {
    const path = await gate.workspace.resolve(file).catch(() => undefined);
    if (!path) continue;
    for (const importer of await findImporters(gate.workspace, path, MAX_IMPORTERS)) {
      const rel = gate.workspace.relative(importer);
      if (!files.includes(rel)) found.add(rel);
    }
  }
  if (found.size === 0) return { answered: [], unanswered: [] };
  const answered: ImporterErrors[] = [];
  const pending = new Map<string, string>();
  const asked = [...found].map(async (file) => {
    const id = `hook-importer-${crypto.randomUUID()}`;
    pending.set(id, file);
    const response = await gate.handle({ id, action: "diagnostics", file, severity: "error" });
    pending.delete(id);
    if (!response.ok) return;
    for (const result of (response.details.files ?? []) as ImporterResult[]) {
      if (result.status !== "ok") continue;
      const now = result.diagnostics.filter((d) => d.severity === "error");
      answered.push({ file: result.file, caused: [], now });
    }
  });
  const settled = new AbortController();
  const late = boundDelay(withinMs, settled.signal);
  await Promise.race([Promise.all(asked), enough, late]);
  settled.abort();
  const unanswered = [...pending.values()].sort();
  await Promise.all(
    [...pending.keys()].map((id) =>
      gate.handle({ id: `${id}-cancel`, action: "cancel", target: id })
    ),
  );
  return { answered, unanswered };
}

type ImporterResult = { file: string; status: string; diagnostics: DiagnosticView[] };

/**
 * The edited file's text before an edit, from a hook payload: Claude Code's
 * `tool_response.originalFile`, else its Edit's `old_string` put back in place of `new_string` in
 * the text now. Undefined when neither says it (a new file, another agent's payload).
 */
export function textBefore(
  payload: { original?: string; edit?: { old: string; new: string; all: boolean } },
  now: string,
): string | undefined {
  if (payload.original !== undefined) return payload.original;
  const edit = payload.edit;
  if (!edit || edit.new === "" || !now.includes(edit.new)) return undefined;
  return edit.all ? now.split(edit.new).join(edit.old) : now.replace(edit.new, () => edit.old);
}
