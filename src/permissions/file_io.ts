// Reading and writing one already-vouched-for file; the checks around it live in workspace.ts.
import { basename, dirname, join } from "../posix_path.ts";
import { LspGateError } from "../errors.ts";
import { sideName } from "./temp_names.ts";

/** Largest file readText() reads unless told otherwise (64 MiB). */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Files up to this size are read in the thread: each of a read's six file operations would
 * otherwise hop to Deno's blocking pool and back (~0.5 ms a file on a loaded machine, paid by
 * every query that reads a config or source context), where reading 1 MiB takes well under that.
 * Only the open stays off the thread: a FIFO swapped in after the look would block it.
 */
const READ_IN_THREAD_BYTES = 1024 * 1024;

/**
 * Opens `path`, lets `verify` compare the opened file with what the path
 * resolves to now (so a swap between check and open is caught), then reads it.
 */
export async function readVerified(
  path: string,
  maxBytes: number,
  verify: (opened: Deno.FileInfo) => Promise<void>,
): Promise<Uint8Array> {
  // Look before opening: opening a FIFO (or a device) blocks until someone writes to it.
  if (!Deno.statSync(path).isFile) throw notAFile(path);
  const file = await Deno.open(path, { read: true });
  try {
    // What was opened, as it is: a FIFO or device swapped in is refused before any read.
    const info = file.statSync();
    if (!info.isFile) throw notAFile(path);
    if (info.size > maxBytes) throw tooLarge(path, info.size, maxBytes);
    await verify(info);
    if (info.size <= READ_IN_THREAD_BYTES) return readAllSync(file, path, maxBytes);
    return await readAll(file, path, maxBytes);
  } finally {
    file.close();
  }
}

function readAllSync(file: Deno.FsFile, path: string, maxBytes: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const n = file.readSync(buffer);
    if (n === null) break;
    total += n;
    if (total > maxBytes) throw tooLarge(path, total, maxBytes);
    chunks.push(buffer.slice(0, n));
  }
  return joined(chunks, total);
}

async function readAll(file: Deno.FsFile, path: string, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await file.read(buffer);
    if (n === null) break;
    total += n;
    if (total > maxBytes) throw tooLarge(path, total, maxBytes);
    chunks.push(buffer.slice(0, n));
  }
  return joined(chunks, total);
}

function joined(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** Whether `opened` and `current` are the same file on disk (same device and inode). */
export function sameFile(opened: Deno.FileInfo, current: Deno.FileInfo): boolean {
  if (opened.ino === null || opened.dev === null) return true; // Windows: no inode to compare.
  return opened.ino === current.ino && opened.dev === current.dev;
}

/**
 * Replaces `path` atomically: a new temp file in the same folder (created
 * exclusively, so a planted symlink is never followed), then rename. Keeps the
 * old file's permission bits. `beforeRename` re-checks the folder last thing.
 */
export async function writeAtomic(
  path: string,
  bytes: Uint8Array,
  beforeRename: () => Promise<void>,
): Promise<void> {
  const { temp } = await writeSide(path, bytes, await existing(path));
  let renamed = false;
  try {
    await beforeRename();
    await Deno.rename(temp, path);
    renamed = true;
  } finally {
    if (!renamed) await Deno.remove(temp).catch(() => {});
  }
}

/**
 * Writes `bytes` to a new side file beside `path` (created exclusively: a planted symlink is never
 * followed), synced, with the permission bits and owner of `like` (the file it will replace) when
 * given; named `temp` when given. Returns its path and inode; it is removed if anything fails.
 */
export async function writeSide(
  path: string,
  bytes: Uint8Array,
  like: Deno.FileInfo | undefined,
  temp = join(dirname(path), sideName(basename(path), "tmp")),
): Promise<{ temp: string; ino: number | null }> {
  const mode = like?.mode != null ? like.mode & 0o7777 : undefined;
  const file = await Deno.open(temp, { write: true, createNew: true, mode: mode ?? 0o666 });
  let done = false;
  try {
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.sync();
    let info = await file.stat();
    const check = async () => {
      const now = await Deno.lstat(temp);
      if (!now.isFile || !sameFile(info, now)) {
        throw new LspGateError("INTERNAL", `The temp file ${temp} was replaced while writing.`);
      }
    };
    // Another user's file keeps its owner (root may give it back; anyone else is refused).
    if (
      like && like.uid !== null && like.gid !== null &&
      (info.uid !== like.uid || info.gid !== like.gid)
    ) {
      await check();
      try {
        await Deno.chown(temp, like.uid, like.gid);
      } catch (error) {
        throw new LspGateError(
          "EDIT_FAILED",
          `${path} is owned by uid ${like.uid} gid ${like.gid}, which lspgate cannot keep on a ` +
            `rewritten file (${(error as Error).message}).`,
          { path },
        );
      }
      info = await file.stat();
    }
    // The umask (or chown, which clears set-id bits) may have dropped bits; Deno has no fchmod.
    if (mode !== undefined && ((info.mode ?? mode) & 0o7777) !== mode) {
      await check();
      await Deno.chmod(temp, mode);
    }
    done = true;
    return { temp, ino: info.ino };
  } finally {
    file.close();
    if (!done) await Deno.remove(temp).catch(() => {});
  }
}

/** What is at `path` now (not followed), or undefined when nothing is; a folder is refused. */
export async function existing(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    const info = await Deno.lstat(path);
    if (info.isDirectory) {
      throw new LspGateError("INVALID_INPUT", `${path} is a folder; only files can be written.`);
    }
    return info.isFile ? info : undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

function notAFile(path: string): LspGateError {
  const message = `${path} is not a regular file, so it cannot be read as text.`;
  return new LspGateError("INVALID_INPUT", message, { path });
}

function tooLarge(path: string, size: number, maxBytes: number): LspGateError {
  return new LspGateError(
    "INVALID_INPUT",
    `${path} is ${size} bytes, more than the ${maxBytes} bytes read for context.`,
    { path },
  );
}
