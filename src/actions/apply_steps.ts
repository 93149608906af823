// The mechanics an apply and its recovery share: carrying a step out, undoing steps, removing
// side files, and saying what failed.
import { LspGateError } from "../errors.ts";
import type { JournalRecord, Step } from "./apply_journal.ts";

/** Options of transact(). */
export interface TransactOptions {
  /** The real workspace root (the journal's key; every path must lie inside it). */
  root: string;
  /** Names a path for messages (workspace-relative). */
  relative: (path: string) => string;
  /** Called before each rename: throws if the folder of `path` is no longer what was checked. */
  checkFolder: (path: string) => Promise<void>;
  /**
   * Called before each rename too: throws if the file at `path` is no longer what the changes
   * were computed from (another tool wrote it, or swapped it for a link, meanwhile).
   */
  checkTarget?: (path: string) => Promise<void>;
}

/** A failure while preparing or carrying out the step for `path`. */
export class StepFailure extends Error {
  constructor(readonly path: string, override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Runs `fn` for the step on `path`, naming the path in what it throws. */
export async function on<T>(path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw error instanceof StepFailure ? error : new StepFailure(path, error);
  }
}

/** Carries `step` out. */
export async function run(step: Step): Promise<void> {
  if (step.kind === "replace") await Deno.rename(step.temp, step.target);
  else if (step.kind === "move") await Deno.rename(step.from, step.to);
  else await Deno.rename(step.target, step.backup);
}

/** The path a step changes. */
export function stepTarget(step: Step): string {
  return step.kind === "move" ? step.to : step.target;
}

/**
 * Undoes the first `done` steps, last first, then removes every side file and created folder.
 * Returns the targets it could not put back (empty when every file is as it was).
 */
export async function undo(record: JournalRecord, done: number): Promise<string[]> {
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
export async function discard(record: JournalRecord): Promise<void> {
  for (const step of record.steps) {
    for (const side of [step.kind === "replace" ? step.temp : undefined, step.backup]) {
      if (side) await Deno.remove(side, { recursive: true }).catch(() => {});
    }
  }
  for (const folder of [...record.folders].reverse()) await Deno.remove(folder).catch(() => {});
}

/** The error an apply answers with: EDIT_FAILED naming the file, or the error it met. */
export function failed(caught: unknown, options: TransactOptions, tail: string): LspGateError {
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

/** Names the files an undo could not put back. */
export function unrestored(leftover: string[], options: TransactOptions): string {
  return `These could not be put back and may hold the new text: ${
    leftover.map(options.relative).join(", ")
  }; the journal is kept, and the next apply or start in this root tries again.`;
}

/** Whether anything is at `path` (not followed). */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
