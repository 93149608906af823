// Recovery of an apply a killed lspgate left halfway: the journal says what it was doing, the disk
// says how far it got; it is finished (rolled forward) or undone (rolled back), and said.
import { basename } from "../posix_path.ts";
import { LspGateError } from "../errors.ts";
import { isSideName } from "../permissions/temp_names.ts";
import { ApplyJournal, type JournalRecord, mayHoldJournal, type Step } from "./apply_journal.ts";
import {
  discard,
  exists,
  failed,
  run,
  stepTarget,
  type TransactOptions,
  undo,
  unrestored,
} from "./apply_steps.ts";

/**
 * Finishes or undoes an apply of `root` that a killed process left halfway, if there is one.
 * Returns what it did in one sentence, or undefined when there was nothing to do.
 */
export async function recoverRoot(
  root: string,
  options: Omit<TransactOptions, "root">,
): Promise<string | undefined> {
  if (!mayHoldJournal()) return undefined;
  const journal = await openJournal(root);
  // Looked for before the lock is taken: most starts find none and need no lock file.
  if (!journal || !(await journal.read())) return undefined;
  return await journal.locked(() => recover(journal, { ...options, root }));
}

/** Whether `root` has a journal left by an interrupted apply (read only, no lock taken). */
export async function pendingJournal(root: string): Promise<boolean> {
  try {
    if (!mayHoldJournal()) return false;
    return (await (await ApplyJournal.of(root, { create: false })).read()) !== undefined;
  } catch {
    // No runtime folder, no grant to look, or a journal not lspgate's: none this start can act on.
    return false;
  }
}

/** The journal of `root`, or undefined where the runtime folder is not granted. */
export async function openJournal(root: string): Promise<ApplyJournal | undefined> {
  try {
    return await ApplyJournal.of(root);
  } catch (error) {
    // No grant for the runtime folder, or one open to others (a journal there could be read or
    // planted): the apply is still all or nothing in this process, only not across a crash.
    if (error instanceof Deno.errors.NotCapable) return undefined;
    if (error instanceof LspGateError && error.code === "PERMISSION_DENIED") {
      if (!warned) console.error(`lspgate: applies keep no crash journal: ${error.message}`);
      warned = true;
      return undefined;
    }
    throw error;
  }
}

let warned = false;

/**
 * Finishes (rolls forward) an apply a killed process left in `committing`, or, if a step cannot
 * be finished, undoes it (rolls back); one left in `preparing` touched no target and is rolled
 * back. Says which on stderr and in the sentence it returns.
 */
export async function recover(
  journal: ApplyJournal,
  options: TransactOptions,
): Promise<string | undefined> {
  const record = await journal.read();
  if (!record) return undefined;
  checkRecord(record, options.root);
  const files = new Set(record.steps.map(stepTarget)).size;
  const when = `started ${record.startedAt} by process ${record.pid}`;
  let note: string;
  if (record.phase === "preparing") {
    await discard(record);
    note = `An apply of ${files} file(s) (${when}) was interrupted before it wrote anything; ` +
      "its temporary files were removed (rolled back).";
  } else {
    let next = await firstUndone(record.steps);
    // Files another program changed since the crash keep that change: never overwritten.
    const kept: string[] = [];
    try {
      for (; next < record.steps.length; next++) {
        const step = record.steps[next];
        if (step.kind === "replace" && !(await stillOriginal(step.target, step.backup))) {
          kept.push(options.relative(step.target));
          continue;
        }
        await options.checkFolder(stepTarget(step));
        await run(step);
      }
      await discard(record);
      note = `An apply of ${files} file(s) (${when}) was interrupted halfway; it was rolled ` +
        (kept.length
          ? `forward, except ${kept.join(", ")}, changed by another program since: left as ` +
            "that program wrote it (lspgate's new text for it was dropped)."
          : "forward: every file now holds its new text.");
    } catch (error) {
      const leftover = await undo(record, next);
      if (leftover.length) {
        throw failed(error, options, unrestored(leftover, options));
      }
      note = `An apply of ${files} file(s) (${when}) was interrupted halfway and could not be ` +
        `finished (${(error as Error).message}); it was rolled back: every file holds what it ` +
        "held before.";
    }
  }
  await journal.clear();
  console.error(`lspgate: ${note}`);
  return note;
}

/**
 * Whether `target` still holds what the interrupted apply kept of it (`backup`: a hard link, else
 * a copy), or is still absent where the apply was to create it.
 */
async function stillOriginal(target: string, backup: string | undefined): Promise<boolean> {
  const now = await Deno.lstat(target).catch(() => undefined);
  if (backup === undefined) return now === undefined;
  const kept = await Deno.lstat(backup).catch(() => undefined);
  if (!now || !kept || !now.isFile) return false;
  if (now.ino === kept.ino && now.dev === kept.dev) return true;
  if ((kept.nlink ?? 1) > 1 || now.size !== kept.size) return false;
  // A copy (no hard links there): the same bytes.
  const [a, b] = await Promise.all([Deno.readFile(target), Deno.readFile(backup)]);
  return a.every((byte, i) => byte === b[i]);
}

/** The index of the first step not carried out: steps are carried out in order. */
async function firstUndone(steps: Step[]): Promise<number> {
  for (const [i, step] of steps.entries()) {
    if (step.kind === "replace" && await exists(step.temp)) return i;
    if (step.kind === "delete" && !(await exists(step.backup))) return i;
    if (step.kind === "move") {
      const at = await Deno.lstat(step.from).catch(() => undefined);
      if (at && at.ino === step.ino) return i;
    }
  }
  return steps.length;
}

/** A journal naming anything but side files and targets inside its root is not acted on. */
function checkRecord(record: JournalRecord, root: string): void {
  const inside = (p: string) =>
    p.startsWith(root + "/") && !p.includes("/../") && !p.includes("\0");
  const ok = record.root === root && record.folders.every(inside) && record.steps.every((s) => {
    const paths = s.kind === "move" ? [s.from, s.to] : [s.target];
    const sides = [s.kind === "replace" ? s.temp : undefined, s.backup].filter((x) => x);
    return paths.every(inside) && sides.every((p) => inside(p!) && isSideName(basename(p!)));
  });
  if (!ok) {
    throw new LspGateError(
      "EDIT_FAILED",
      "The apply journal of this root names files outside it or not lspgate's own; it was left " +
        "alone.",
    );
  }
}
