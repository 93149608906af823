// Reading and writing one already-vouched-for file; the checks around it live in workspace.ts.
import { basename, dirname, join } from "node:path";
import { LspGateError } from "../errors.ts";

/** Largest file readText() reads unless told otherwise (64 MiB). */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

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
  if (!(await Deno.stat(path)).isFile) throw notAFile(path);
  const file = await Deno.open(path, { read: true });
  try {
    const info = await file.stat();
    if (!info.isFile) throw notAFile(path);
    if (info.size > maxBytes) throw tooLarge(path, info.size, maxBytes);
    await verify(info);
    return await readAll(file, path, maxBytes);
  } finally {
    file.close();
  }
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
  const mode = await existingMode(path);
  // Cut the name so a 255-byte file name still leaves room for the suffix.
  const temp = join(
    dirname(path),
    `.${basename(path).slice(0, 80)}.lspgate-${crypto.randomUUID()}.tmp`,
  );
  const file = await Deno.open(temp, { write: true, createNew: true, mode: mode ?? 0o666 });
  let renamed = false;
  try {
    try {
      let written = 0;
      while (written < bytes.length) written += await file.write(bytes.subarray(written));
      await file.sync();
      const info = await file.stat();
      // The umask may have dropped bits the old file had; Deno has no fchmod.
      if (mode !== undefined && ((info.mode ?? mode) & 0o7777) !== mode) {
        const now = await Deno.lstat(temp);
        if (!now.isFile || !sameFile(info, now)) {
          throw new LspGateError("INTERNAL", `The temp file ${temp} was replaced while writing.`);
        }
        await Deno.chmod(temp, mode);
      }
    } finally {
      file.close();
    }
    await beforeRename();
    await Deno.rename(temp, path);
    renamed = true;
  } finally {
    if (!renamed) await Deno.remove(temp).catch(() => {});
  }
}

async function existingMode(path: string): Promise<number | undefined> {
  try {
    const info = await Deno.lstat(path);
    if (info.isDirectory) {
      throw new LspGateError("INVALID_INPUT", `${path} is a folder; only files can be written.`);
    }
    return info.isFile && info.mode !== null ? info.mode & 0o7777 : undefined;
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
