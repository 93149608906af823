// What the post-edit hook remembers across an agent's turn, per agent session id: the files
// touched (for the end-of-turn report) and the errors last reported per file (so a caller's
// errors are reported when the edit changed them, not again on every edit). Kept in the user's
// private daemon folder, so it works with or without a daemon.
import { join } from "../posix_path.ts";
import {
  checkRuntimeEntry,
  ensureRuntimeFolder,
  readRuntimeFile,
  writeRuntimeFile,
} from "../runtime_folder.ts";

/** Most files remembered for one turn. */
export const MAX_TOUCHED = 16;

/** One agent session's memory. */
export interface TurnState {
  touched: string[];
  /** Per file, the signatures of the errors last reported. */
  reported: Record<string, string[]>;
}

/** Where the session's state is kept: `turn-<hash>.json` in the runtime folder. */
export async function turnStatePath(session: string, root: string): Promise<string> {
  return join(await ensureRuntimeFolder(), await turnStateName(session, root));
}

/** The name of the session's state file in the runtime folder (a hash of root and session). */
export async function turnStateName(session: string, root: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`${root}\0${session}`),
  );
  const hex = [...new Uint8Array(digest)].slice(0, 12)
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  return `turn-${hex}.json`;
}

/**
 * The session's state (empty when none, or not JSON). A file that is not this user's own regular
 * file (a planted symlink) is PERMISSION_DENIED naming it, never followed.
 */
export async function readTurn(session: string, root: string): Promise<TurnState> {
  const text = await readRuntimeFile(await turnStatePath(session, root));
  try {
    const parsed = JSON.parse(text ?? "{}");
    return {
      touched: Array.isArray(parsed.touched) ? parsed.touched.filter(isString) : [],
      reported: parsed.reported && typeof parsed.reported === "object" ? parsed.reported : {},
    };
  } catch {
    return { touched: [], reported: {} };
  }
}

/** Saves the session's state (mode 0600, replaced atomically, never through a symlink). */
export async function writeTurn(session: string, root: string, state: TurnState): Promise<void> {
  await writeRuntimeFile(await turnStatePath(session, root), JSON.stringify(state));
}

/** How long a hook waits for another's update of the same session, and when a lock is stale. */
const LOCK_WAIT_MS = 3000;
const STALE_LOCK_MS = 10_000;

/**
 * Reads the session's state, applies `change` and saves the result, with no other hook of the
 * session in between: an agent's parallel edits run their post-edit hooks at once, and each
 * one's touched files must survive the others'. Returns the state as it was before.
 */
export async function updateTurn(
  session: string,
  root: string,
  change: (state: TurnState) => TurnState,
): Promise<TurnState> {
  const lock = `${await turnStatePath(session, root)}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      (await Deno.open(lock, { createNew: true, write: true, mode: 0o600 })).close();
      break;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      // Only a lock file of this user's is waited for or taken over (a planted symlink is named).
      checkRuntimeEntry(lock, "file");
      // A hook that died holding the lock leaves it behind: an old one is taken over.
      const age = await Deno.lstat(lock).then(
        (i) => Date.now() - (i.mtime?.getTime() ?? 0),
        () => 0,
      );
      if (age > STALE_LOCK_MS || Date.now() > deadline) {
        await Deno.remove(lock).catch(() => {});
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  try {
    const before = await readTurn(session, root);
    await writeTurn(session, root, change(before));
    return before;
  } finally {
    await Deno.remove(lock).catch(() => {});
  }
}

/** Adds files to the turn's touched list (most recent last, at most MAX_TOUCHED). */
export function touch(state: TurnState, files: string[]): TurnState {
  const touched = [...state.touched.filter((f) => !files.includes(f)), ...files];
  return { ...state, touched: touched.slice(-MAX_TOUCHED) };
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}
