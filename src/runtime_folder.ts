// lspgate's private runtime folder (the daemon's socket, the hook's turn state, watcher barriers):
// made mode 0700, refused when it is not this user's own, and every file in it is read and written
// without following a symlink. Architecture Invariant: nothing here needs `--allow-sys` — who "this
// user" is comes from a file lspgate itself creates in the folder.
import { LspGateError } from "./errors.ts";
import { runtimeFolderPath } from "./fs.ts";

let ownUid: number | undefined;

/**
 * The runtime folder (see runtimeFolderPath), created mode 0700 when missing; PERMISSION_DENIED
 * when it is not a folder, is open to others, or belongs to another user (a folder someone else
 * made first is an attack, not a convenience).
 */
export function ensureRuntimeFolder(): Promise<string> {
  try {
    return Promise.resolve(ensureRuntimeFolderSync());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** ensureRuntimeFolder(), synchronously (for the watcher's barrier). */
export function ensureRuntimeFolderSync(): string {
  const folder = runtimeFolderPath();
  try {
    Deno.mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  const info = Deno.lstatSync(folder);
  const what = fault(info, "folder", folder);
  if (what !== undefined) {
    throw new LspGateError(
      "PERMISSION_DENIED",
      `The runtime folder ${folder} is not a private folder of this user (a folder, mode 0700, ` +
        `owned by you): it is ${what}; remove it, or set XDG_RUNTIME_DIR (or USER) to name another.`,
      { path: folder },
    );
  }
  return folder;
}

type Kind = "file" | "socket" | "folder";

/**
 * What is wrong with an entry of the runtime folder (or the folder itself) that lspgate would use
 * as `kind`, or undefined: a symlink, another kind, another user's (`ownUidIn(folder)`), or open to
 * others (a file with any group or other bit; a folder not exactly 0700).
 */
function fault(info: Deno.FileInfo, kind: Kind, folder: string): string | undefined {
  if (info.isSymlink) return "a symlink";
  const right = kind === "file"
    ? info.isFile
    : kind === "folder"
    ? info.isDirectory
    : info.isSocket === true;
  if (!right) return "not a " + kind;
  if (info.uid !== ownUidIn(folder)) return `not private to this user (owned by uid ${info.uid})`;
  const mode = (info.mode ?? 0) & 0o7777;
  // A socket's own mode guards nothing (connecting takes the folder's search permission).
  const open = kind === "file" ? (mode & 0o077) !== 0 : kind === "folder" && mode !== 0o700;
  return open ? `not private to this user (mode 0${mode.toString(8)})` : undefined;
}

/**
 * This process's user id as the kernel gives it to files: the owner of a file created in `folder`
 * (then removed). Deno.uid() would need `--allow-sys=uid` (and /proc/self/status, --allow-all).
 * A folder this user may not create in is not theirs: -1.
 */
export function ownUidIn(folder: string): number {
  if (ownUid !== undefined) return ownUid;
  const probe = `${folder}/.owner-${crypto.randomUUID()}`;
  try {
    const file = Deno.openSync(probe, { createNew: true, write: true, mode: 0o600 });
    try {
      ownUid = file.statSync().uid ?? -1;
    } finally {
      file.close();
      Deno.removeSync(probe);
    }
    return ownUid;
  } catch (error) {
    if (error instanceof Deno.errors.PermissionDenied) return -1;
    throw error;
  }
}

/**
 * Checks what is at `path` in the runtime folder before lspgate uses it: it must be of `kind`
 * (never a symlink), owned by this user and closed to others (a folder: mode 0700). Returns false
 * when nothing is there; anything else is PERMISSION_DENIED naming the file.
 */
export function checkRuntimeEntry(path: string, kind: Kind): boolean {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  const what = fault(info, kind, path.slice(0, path.lastIndexOf("/")));
  if (what !== undefined) {
    throw new LspGateError(
      "PERMISSION_DENIED",
      `${path} in lspgate's runtime folder is ${what}: lspgate does not use it (nor follow it); ` +
        "remove it.",
      { path },
    );
  }
  return true;
}

/**
 * The text of a file in the runtime folder, or undefined when there is none. Never through a
 * symlink: what was checked (lstat) is what was opened (same device and inode).
 */
export async function readRuntimeFile(path: string): Promise<string | undefined> {
  if (!checkRuntimeEntry(path, "file")) return undefined;
  const checked = Deno.lstatSync(path);
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  try {
    const opened = await file.stat();
    if (opened.ino !== checked.ino || opened.dev !== checked.dev) {
      throw new LspGateError("PERMISSION_DENIED", `${path} was replaced while being opened`, {
        path,
      });
    }
    return await new Response(file.readable).text();
  } catch (error) {
    file.close();
    throw error;
  }
}

/**
 * Replaces a file in the runtime folder (mode 0600): written to a new file of its own (O_EXCL
 * follows no symlink), then renamed over the name (rename replaces a symlink, never its target).
 */
export async function writeRuntimeFile(path: string, text: string): Promise<void> {
  checkRuntimeEntry(path, "file");
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  const file = await Deno.open(temp, { createNew: true, write: true, mode: 0o600 });
  try {
    await file.write(new TextEncoder().encode(text));
  } finally {
    file.close();
  }
  await Deno.rename(temp, path);
}
