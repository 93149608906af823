// All-or-nothing applies. Every new text is first written to a side file beside its target and
// every original kept (a hard link, else a copy) before any target is touched; then the side files
// are renamed into place one by one. A failure puts every replaced file back from its original; a
// process killed halfway leaves a journal (apply_journal.ts) from which the next start, or the next
// apply in the root, finishes the apply or undoes it, and says which.
//
// Test hook: LSPGATE_TEST_APPLY_PAUSE_MS=<ms> pauses that long after each rename, so a test can
// kill the process mid-apply; unset (always, outside tests) it does nothing.
import { basename, dirname, join } from "../posix_path.ts";
import { env } from "../fs.ts";
import { existing, writeSide } from "../permissions/file_io.ts";
import { sideName } from "../permissions/temp_names.ts";
import type { ApplyJournal, JournalRecord, Step } from "./apply_journal.ts";
import {
  discard,
  exists,
  failed,
  on,
  run,
  stepTarget,
  type TransactOptions,
  undo,
  unrestored,
} from "./apply_steps.ts";
import { openJournal, recover } from "./apply_recovery.ts";

export type { TransactOptions } from "./apply_steps.ts";
export { pendingJournal, recoverRoot } from "./apply_recovery.ts";

/** One thing an apply does, in order: write a file's new text, move a file, delete one. */
export type Change =
  | { kind: "write"; path: string; text: string }
  | { kind: "move"; from: string; to: string }
  | { kind: "delete"; path: string };

/**
 * Carries out `changes` all or nothing. Any failure leaves every file as it was and throws
 * EDIT_FAILED naming the file and the reason (PERMISSION_DENIED for a missing Deno permission).
 * Returns the note of an interrupted earlier apply it recovered first, if any.
 */
export async function transact(
  changes: Change[],
  options: TransactOptions,
): Promise<string | undefined> {
  const journal = await openJournal(options.root);
  const run = async () => {
    const recovered = journal ? await recover(journal, options) : undefined;
    await apply(changes, options, journal);
    return recovered;
  };
  return journal ? await journal.locked(run) : await run();
}

async function apply(
  changes: Change[],
  options: TransactOptions,
  journal: ApplyJournal | undefined,
): Promise<void> {
  const record: JournalRecord = {
    version: 1,
    root: options.root,
    pid: Deno.pid,
    startedAt: new Date().toISOString(),
    phase: "preparing",
    steps: [],
    folders: [],
  };
  const contents = await plan(changes, record.steps);
  await journal?.write(record);
  try {
    await prepare(record, contents);
  } catch (error) {
    await discard(record);
    await journal?.clear();
    throw failed(error, options, "");
  }
  record.phase = "committing";
  await journal?.write(record).catch(async (error) => {
    await discard(record);
    await journal.clear();
    throw failed(error, options, "");
  });
  const pause = Number(env("LSPGATE_TEST_APPLY_PAUSE_MS") ?? 0);
  let done = 0;
  try {
    for (const step of record.steps) {
      await on(stepTarget(step), async () => {
        await options.checkFolder(stepTarget(step));
        await options.checkTarget?.(stepTarget(step));
        await run(step);
      });
      done++;
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    }
  } catch (error) {
    const leftover = await undo(record, done);
    if (leftover.length === 0) await journal?.clear();
    throw failed(error, options, leftover.length ? unrestored(leftover, options) : "");
  }
  await discard(record);
  await journal?.clear();
}

/** What a replace step writes: a new text, or the bytes of a file moved to another file system. */
type Content = { text: string; modeOf?: string } | { copyOf: string };

/**
 * The steps of `changes` (pushed to `steps`) and what each replace step writes. A move onto
 * another file system, which rename(2) cannot make, becomes a copy beside the destination and the
 * original moved aside as a delete is: two steps of the same transaction.
 */
async function plan(changes: Change[], steps: Step[]): Promise<Map<Step, Content>> {
  const contents = new Map<Step, Content>();
  const pending = new Map<string, { text: string }>();
  for (const change of changes) {
    if (change.kind === "move" && await crossDevice(change.from, change.to)) {
      const copy = plannedStep({ kind: "write", path: change.to, text: "" });
      const text = pending.get(change.from);
      contents.set(copy, text ? { ...text, modeOf: change.from } : { copyOf: change.from });
      steps.push(copy, plannedStep({ kind: "delete", path: change.from }));
      continue;
    }
    const step = plannedStep(change);
    if (change.kind === "write") {
      contents.set(step, { text: change.text });
      pending.set(change.path, { text: change.text });
    }
    steps.push(step);
  }
  return contents;
}

/** Whether `from` is a file on another file system than the folder `to` goes to. */
async function crossDevice(from: string, to: string): Promise<boolean> {
  const source = await Deno.lstat(from).catch(() => undefined);
  if (!source?.isFile || source.dev === null) return false;
  for (let folder = dirname(to);; folder = dirname(folder)) {
    const info = await Deno.stat(folder).catch(() => undefined);
    if (info) return info.dev !== source.dev;
    if (folder === dirname(folder)) return false;
  }
}

/** The step a change becomes, its side-file names chosen now so the journal can name them. */
function plannedStep(change: Change): Step {
  const side = (path: string, kind: "tmp" | "orig") =>
    join(dirname(path), sideName(basename(path), kind));
  // Every name is in the journal before the file is made: a crash while preparing leaves none
  // unaccounted for. A backup name whose original turns out not to exist is dropped.
  if (change.kind === "write") {
    const { path } = change;
    return { kind: "replace", target: path, temp: side(path, "tmp"), backup: side(path, "orig") };
  }
  if (change.kind === "delete") {
    return { kind: "delete", target: change.path, backup: side(change.path, "orig") };
  }
  return {
    kind: "move",
    from: change.from,
    to: change.to,
    backup: side(change.to, "orig"),
    ino: null,
  };
}

/** Writes every side file: new texts beside their targets, a link to every original replaced. */
async function prepare(record: JournalRecord, contents: Map<Step, Content>): Promise<void> {
  const inodes = new Map<string, number | null>();
  for (const step of record.steps) await on(stepTarget(step), () => prepareStep(step));
  async function prepareStep(step: Step): Promise<void> {
    if (step.kind === "replace") {
      await makeFolders(dirname(step.target), record);
      const before = await existing(step.target);
      if (before) await keep(step.target, step.backup!);
      else step.backup = undefined;
      const content = contents.get(step) ?? { text: "" };
      // A file moved by copy keeps its own mode and owner.
      const source = "copyOf" in content ? content.copyOf : content.modeOf;
      const like = source ? await Deno.lstat(source) : before;
      const bytes = "copyOf" in content
        ? await Deno.readFile(content.copyOf)
        : new TextEncoder().encode(content.text);
      const { ino } = await writeSide(step.target, bytes, like, step.temp);
      inodes.set(step.target, ino);
    } else if (step.kind === "move") {
      step.ino = inodes.has(step.from) ? inodes.get(step.from)! : (await Deno.lstat(step.from)).ino;
      inodes.delete(step.from);
      inodes.set(step.to, step.ino);
      await makeFolders(dirname(step.to), record);
      if (await existing(step.to)) await keep(step.to, step.backup!);
      else step.backup = undefined;
    }
  }
}

/** Keeps what `path` holds now as `backup`: a hard link (owner, mode, inode kept), else a copy. */
async function keep(path: string, backup: string): Promise<void> {
  try {
    await Deno.link(path, backup);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) throw error;
    // No hard links here (or none to this file, e.g. immutable): a copy, mode included.
    await Deno.copyFile(path, backup);
  }
}

async function makeFolders(folder: string, record: JournalRecord): Promise<void> {
  const missing: string[] = [];
  for (let f = folder; !(await exists(f)); f = dirname(f)) missing.unshift(f);
  for (const f of missing) {
    await Deno.mkdir(f);
    record.folders.push(f);
  }
}
