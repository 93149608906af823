// The journal of a multi-file apply, in lspgate's private runtime folder: what an apply is about to
// do, so that a process killed halfway leaves enough for the next one to finish it or undo it.
// One journal and one lock file per workspace root; the lock (flock, released by the kernel when a
// process dies) tells a journal whose apply is running from one whose process is gone.
import { join } from "../posix_path.ts";
import { LspGateError } from "../errors.ts";
import { runtimeFolderPath, uid } from "../fs.ts";
import { sameFile } from "../permissions/file_io.ts";
import { ownUidIn } from "../runtime_folder.ts";

import type { JournalRecord } from "./apply_journal_schema.ts";

export type { JournalRecord, Step } from "./apply_journal_schema.ts";

/**
 * Whether the runtime folder may hold a journal of any root: false when its listing (in the thread)
 * shows none, as at almost every start. A start then skips the private folder's checks and the
 * root's digest (~4 ms before the first question); anything else is left to ApplyJournal.
 */
export function mayHoldJournal(): boolean {
  try {
    for (const entry of Deno.readDirSync(runtimeFolderPath())) {
      if (entry.name.startsWith("apply-") && entry.name.endsWith(".json")) return true;
    }
    return false;
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound);
  }
}

/** The journal and lock of one workspace root. */
export class ApplyJournal {
  private constructor(readonly path: string, readonly lockPath: string) {}

  /**
   * The journal of `root` (a real path); the runtime folder is created, private, if missing (with
   * `create: false`, a missing folder is NotFound: a process that may not write just looks).
   */
  static async of(root: string, { create = true } = {}): Promise<ApplyJournal> {
    const folder = await privateFolder(create);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(root));
    const hex = [...new Uint8Array(digest)].slice(0, 12)
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    return new ApplyJournal(join(folder, `apply-${hex}.json`), join(folder, `apply-${hex}.lock`));
  }

  /**
   * Runs `fn` holding this root's apply lock: another lspgate process applying in the same root
   * waits, and a journal found under the lock belongs to no running apply.
   */
  async locked<T>(fn: () => Promise<T>): Promise<T> {
    const previous = held.get(this.lockPath) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => release = resolve);
    const chain = previous.then(() => mine);
    held.set(this.lockPath, chain);
    await previous;
    try {
      const file = await openPrivate(this.lockPath);
      try {
        await file.lock(true);
        return await fn();
      } finally {
        file.close();
      }
    } finally {
      release();
      if (held.get(this.lockPath) === chain) held.delete(this.lockPath);
    }
  }

  /** The journal left here, or undefined; a journal that is not lspgate's own is refused. */
  async read(): Promise<JournalRecord | undefined> {
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(this.path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
    checkPrivateFile(this.path, info);
    const file = await Deno.open(this.path, { read: true });
    let text: string;
    try {
      if (!sameFile(await file.stat(), info)) throw notPrivate(this.path);
      const decoder = new TextDecoder();
      const buffer = new Uint8Array(64 * 1024);
      text = "";
      for (let n = await file.read(buffer); n !== null; n = await file.read(buffer)) {
        text += decoder.decode(buffer.subarray(0, n), { stream: true });
      }
      text += decoder.decode();
    } finally {
      file.close();
    }
    try {
      const { recordSchema } = await import("./apply_journal_schema.ts");
      const parsed = recordSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
    } catch {
      // Not JSON: not a journal lspgate wrote.
    }
    throw notPrivate(this.path);
  }

  /** Writes `record` atomically (a new file renamed over the journal; no link is followed). */
  async write(record: JournalRecord): Promise<void> {
    const temp = `${this.path}.${crypto.randomUUID()}.tmp`;
    const file = await Deno.open(temp, { write: true, createNew: true, mode: 0o600 });
    try {
      const bytes = new TextEncoder().encode(JSON.stringify(record));
      let written = 0;
      while (written < bytes.length) written += await file.write(bytes.subarray(written));
      await file.sync();
    } finally {
      file.close();
    }
    try {
      await Deno.rename(temp, this.path);
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      throw error;
    }
  }

  /** Removes the journal (the apply is over, one way or the other). */
  async clear(): Promise<void> {
    await Deno.remove(this.path).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
}

/** Lock files this process is using or waiting for, so its own applies queue without a thread. */
const held = new Map<string, Promise<void>>();

/** The runtime folder, created 0700 if missing; one not this user's alone is refused. */
async function privateFolder(create: boolean): Promise<string> {
  const folder = runtimeFolderPath();
  try {
    if (create) await Deno.mkdir(folder, { mode: 0o700 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const info = await Deno.lstat(folder);
  const me = ownUid(folder);
  if (!info.isDirectory || (me !== null && info.uid !== me) || ((info.mode ?? 0) & 0o077)) {
    throw new LspGateError(
      "PERMISSION_DENIED",
      `The runtime folder ${folder} is not a private folder of this user (mode 0700, owned by ` +
        `uid ${me}); remove it or set XDG_RUNTIME_DIR.`,
      { path: folder },
    );
  }
  return folder;
}

/**
 * This user's id, as files in the runtime folder `folder` are owned: learnt by making one there
 * (uid() reads /proc/self/status, which Deno grants only with --allow-all); uid() where this
 * process may not write there (it only looks for a journal).
 */
function ownUid(folder: string): number | null {
  try {
    return ownUidIn(folder);
  } catch {
    return uid();
  }
}

/** Opens (creating if missing) a file of the runtime folder, never through a symlink. */
async function openPrivate(path: string): Promise<Deno.FsFile> {
  try {
    return await Deno.open(path, { read: true, write: true, createNew: true, mode: 0o600 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const info = await Deno.lstat(path);
  checkPrivateFile(path, info);
  const file = await Deno.open(path, { read: true, write: true });
  if (!sameFile(await file.stat(), info)) {
    file.close();
    throw notPrivate(path);
  }
  return file;
}

function checkPrivateFile(path: string, info: Deno.FileInfo): void {
  const me = ownUid(path.slice(0, path.lastIndexOf("/")));
  if (!info.isFile || (me !== null && info.uid !== me) || ((info.mode ?? 0) & 0o077)) {
    throw notPrivate(path);
  }
}

function notPrivate(path: string): LspGateError {
  return new LspGateError(
    "PERMISSION_DENIED",
    `${path} is not a file lspgate wrote (a link, another user's, open to others, or not a ` +
      "journal); it was left alone. Remove it to let applies in this root go on.",
    { path },
  );
}
