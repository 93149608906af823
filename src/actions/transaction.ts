// All-or-nothing applies. Every new text is first written to a side file beside its target and
// every original kept (a hard link, else a copy) before any target is touched; then the side files
// are renamed into place one by one. A failure puts every replaced file back from its original; a
// process killed halfway leaves a journal (apply_journal.ts) from which the next start, or the next
// apply in the root, finishes the apply or undoes it, and says which.
//
// Test hook: LSPGATE_TEST_APPLY_PAUSE_MS=<ms> pauses that long after each rename, so a test can
// kill the process mid-apply; unset (always, outside tests) it does nothing.
import { basename, dirname, join } from "node:path";
import { LspGateError } from "../errors.ts";
import { env } from "../fs.ts";
import { existing, writeSide } from "../permissions/file_io.ts";
import { isSideName, sideName } from "../permissions/temp_names.ts";
import { ApplyJournal, type JournalRecord, type Step } from "./apply_journal.ts";

/** One thing an apply does, in order: write a file's new text, move a file, delete one. */
export type Change =
  | { kind: "write"; path: string; text: string }
  | { kind: "move"; from: string; to: string }
  | { kind: "delete"; path: string };

/** Options of transact(). */
export interface TransactOptions {
  /** The real workspace root (the journal's key; every path must lie inside it). */
  root: string;
  /** Names a path for messages (workspace-relative). */
  relative: (path: string) => string;
  /** Called before each rename: throws if the folder of `path` is no longer what was checked. */
  checkFolder: (path: string) => Promise<void>;
}

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

/**
 * Finishes or undoes an apply of `root` that a killed process left halfway, if there is one.
 * Returns what it did in one sentence, or undefined when there was nothing to do.
 */
export async function recoverRoot(
  root: string,
  options: Omit<TransactOptions, "root">,
): Promise<string | undefined> {
  const journal = await openJournal(root);
  // Looked for before the lock is taken: most starts find none and need no lock file.
  if (!journal || !(await journal.read())) return undefined;
  return await journal.locked(() => recover(journal, { ...options, root }));
}

/** Whether `root` has a journal left by an interrupted apply (read only, no lock taken). */
export async function pendingJournal(root: string): Promise<boolean> {
  try {
    return (await (await ApplyJournal.of(root, { create: false })).read()) !== undefined;
  } catch {
    // No runtime folder, no grant to look, or a journal not lspgate's: none this start can act on.
    return false;
  }
}

async function openJournal(root: string): Promise<ApplyJournal | undefined> {
  try {
    return await ApplyJournal.of(root);
  } catch (error) {
    // No grant for the runtime folder: the apply is still all or nothing in this process.
    if (error instanceof Deno.errors.NotCapable) return undefined;
    throw error;
  }
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

/** A failure while preparing or carrying out the step for `path`. */
class StepFailure extends Error {
  constructor(readonly path: string, override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Runs `fn` for the step on `path`, naming the path in what it throws. */
async function on<T>(path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw error instanceof StepFailure ? error : new StepFailure(path, error);
  }
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

async function run(step: Step): Promise<void> {
  if (step.kind === "replace") await Deno.rename(step.temp, step.target);
  else if (step.kind === "move") await Deno.rename(step.from, step.to);
  else await Deno.rename(step.target, step.backup);
}

function stepTarget(step: Step): string {
  return step.kind === "move" ? step.to : step.target;
}

/**
 * Undoes the first `done` steps, last first, then removes every side file and created folder.
 * Returns the targets it could not put back (empty when every file is as it was).
 */
async function undo(record: JournalRecord, done: number): Promise<string[]> {
  const leftover: string[] = [];
  for (const step of record.steps.slice(0, done).reverse()) {
    try {
      if (step.kind === "replace") {
        if (step.backup) await Deno.rename(step.backup, step.target);
        else await Deno.remove(step.target);
      } else if (step.kind === "move") {
        await Deno.rename(step.to, step.from);
        if (step.backup) await Deno.rename(step.backup, step.to);
      } else {
        await Deno.rename(step.backup, step.target);
      }
    } catch {
      leftover.push(stepTarget(step));
    }
  }
  if (leftover.length === 0) await discard(record);
  return leftover;
}

/** Removes what is left of the side files, and the folders the apply made if they are empty. */
async function discard(record: JournalRecord): Promise<void> {
  for (const step of record.steps) {
    for (const side of [step.kind === "replace" ? step.temp : undefined, step.backup]) {
      if (side) await Deno.remove(side, { recursive: true }).catch(() => {});
    }
  }
  for (const folder of [...record.folders].reverse()) await Deno.remove(folder).catch(() => {});
}

/**
 * Finishes (rolls forward) an apply a killed process left in `committing`, or, if a step cannot
 * be finished, undoes it (rolls back); one left in `preparing` touched no target and is rolled
 * back. Says which on stderr and in the sentence it returns.
 */
async function recover(
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
    try {
      for (; next < record.steps.length; next++) {
        const step = record.steps[next];
        await options.checkFolder(stepTarget(step));
        await run(step);
      }
      await discard(record);
      note = `An apply of ${files} file(s) (${when}) was interrupted halfway; it was rolled ` +
        "forward: every file now holds its new text.";
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

function failed(caught: unknown, options: TransactOptions, tail: string): LspGateError {
  const error = caught instanceof StepFailure ? caught.cause : caught;
  const nothing = "Nothing was written: every file is as it was.";
  if (error instanceof LspGateError) {
    return new LspGateError(error.code, `${error.message} ${tail || nothing}`, error.data);
  }
  if (error instanceof Deno.errors.NotCapable) {
    const flag = (error as Error).message.match(/--allow-[a-z-]+/)?.[0] ?? "--allow-write";
    return new LspGateError(
      "PERMISSION_DENIED",
      `Deno permission missing: ${(error as Error).message} (grant it with ${flag}). ` +
        (tail || nothing),
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  const file = caught instanceof StepFailure ? options.relative(caught.path) : "";
  return new LspGateError(
    "EDIT_FAILED",
    `The edit could not be written${file ? ` (${file})` : ""}: ${message}. ` +
      (tail || nothing),
    { ...(file ? { file } : {}), reason: message, restored: tail === "" },
  );
}

function unrestored(leftover: string[], options: TransactOptions): string {
  return `These could not be put back and may hold the new text: ${
    leftover.map(options.relative).join(", ")
  }; the journal is kept, and the next apply or start in this root tries again.`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
