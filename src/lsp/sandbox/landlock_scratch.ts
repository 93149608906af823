// The Landlock server's private scratch folder (its HOME and TMPDIR), made by the launcher before it
// restricts itself: `<runtime folder>/sandbox/<pid>-<hex>`, entered folder by folder without
// following a link, and the sweep of those a killed lspgate left, inside the checked folder only.
import { cString, errno, fail, type Libc, O_CLOEXEC, O_PATH } from "./landlock_libc.ts";
import { LAUNCHER_REFUSAL, LAUNCHER_REFUSAL_CODE } from "./launcher_refusal.ts";

// O_DIRECTORY and O_NOFOLLOW are flags whose values differ on arm64; so does statx's number.
const ARM64 = Deno.build.arch === "aarch64";
const O_DIRECTORY = ARM64 ? 0o40000 : 0o200000;
const O_NOFOLLOW = ARM64 ? 0o100000 : 0o400000;
const O_RDONLY = 0;
const O_WRONLY = 1;
const O_CREAT = 0o100;
const O_EXCL = 0o200;
const O_NONBLOCK = 0o4000;
const AT_FDCWD = -100;
const AT_EMPTY_PATH = 0x1000;
const SYS_STATX = ARM64 ? 291n : 332n;
const STATX_TYPE = 1;
const STATX_MODE = 2;
const STATX_UID = 8;
const S_IFMT = 0o170000;
const S_IFDIR = 0o40000;

/** Whether `path` opens as a folder (symlinks followed), asked without errno. */
function isFolder(libc: Libc, path: string): boolean {
  const fd = libc.symbols.open(cString(path), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  libc.symbols.close(fd);
  return true;
}

/** Makes a folder above the runtime folder (`/run/user/UID`, `$TMPDIR`): not lspgate's own. */
function makeDir(libc: Libc, path: string): void {
  if (libc.symbols.mkdir(cString(path), 0o700) === 0) return;
  const code = errno(libc);
  // A parent that is already a folder is fine, however errno reads.
  if (isFolder(libc, path)) return;
  fail(
    libc,
    `cannot create ${path} for the server's private scratch folder (set XDG_RUNTIME_DIR or ` +
      "TMPDIR to a folder this process may write, outside the workspace)",
    code,
  );
}

/** Ends the launcher refusing `path`: lspgate names the code and the path to the agent. */
function refuse(path: string, why: string): never {
  console.error(
    `${LAUNCHER_REFUSAL}${path} ${why}; lspgate does not use it ` +
      "(nor follow it) for the server's scratch folder: remove it.",
  );
  Deno.exit(LAUNCHER_REFUSAL_CODE);
}

/**
 * Opens the folder `name` in the folder `at` without following a link (O_NOFOLLOW |
 * O_DIRECTORY) and checks it is this user's and mode 0700, else refuses `path`; made first (0700),
 * and with "fresh" it must be made here (a new name). Decided on what the kernel reports of the
 * open folder (statx), never on errno.
 */
function privateFolder(
  libc: Libc,
  at: number,
  name: string,
  path: string,
  make: "fresh" | "missing",
): number {
  if (libc.symbols.mkdirat(at, cString(name), 0o700) !== 0 && make === "fresh") {
    fail(libc, `cannot create ${path} for the server's private scratch folder`);
  }
  const flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  const fd = libc.symbols.openat(at, cString(name), flags);
  if (fd < 0) refuse(path, "cannot be opened as a folder without following a link (a symlink?)");
  const stat = new DataView(new ArrayBuffer(256));
  const mask = STATX_TYPE | STATX_MODE | STATX_UID;
  const asked = libc.symbols.statx(SYS_STATX, fd, cString(""), AT_EMPTY_PATH, mask, stat);
  if (asked !== 0n) refuse(path, "cannot be examined");
  // struct statx: stx_uid at 20, stx_mode at 28 (the same layout on every architecture).
  const owner = stat.getUint32(20, true);
  const mode = stat.getUint16(28, true);
  if ((mode & S_IFMT) !== S_IFDIR) refuse(path, "is not a folder");
  if (owner !== libc.symbols.getuid()) refuse(path, `belongs to another user (uid ${owner})`);
  if ((mode & 0o7777) !== 0o700) refuse(path, `has mode 0${(mode & 0o7777).toString(8)}, not 0700`);
  return fd;
}

/** The open, checked folders of a scratch folder: `<runtime>/sandbox` and the scratch itself. */
export interface Scratch {
  parent: number;
  folder: number;
}

/**
 * Creates the scratch folder `<runtime folder>/sandbox/<name>` and its `home` and `tmp`, 0700:
 * the folders above the runtime folder are made when missing; the runtime folder, `sandbox` and
 * the scratch folder are each entered through the one checked before (never a link, this user's,
 * 0700), so a link planted at any of them makes nothing in its target.
 */
export function makeScratch(libc: Libc, scratch: string): Scratch {
  const sandbox = scratch.slice(0, scratch.lastIndexOf("/"));
  const runtime = sandbox.slice(0, sandbox.lastIndexOf("/"));
  const parts = runtime.split("/").filter(Boolean);
  for (let i = 1; i < parts.length; i++) makeDir(libc, "/" + parts.slice(0, i).join("/"));
  const top = privateFolder(libc, AT_FDCWD, runtime, runtime, "missing");
  const parent = privateFolder(libc, top, "sandbox", sandbox, "missing");
  libc.symbols.close(top);
  const name = scratch.slice(sandbox.length + 1);
  const folder = privateFolder(libc, parent, name, scratch, "fresh");
  for (const sub of ["home", "tmp"]) {
    if (libc.symbols.mkdirat(folder, cString(sub), 0o700) !== 0) {
      fail(libc, `cannot create ${scratch}/${sub}`);
    }
  }
  return { parent, folder };
}

const ESRCH = 3;

/** This process's PID namespace (`pid:[4026531836]`): a PID means a process only within it. */
function pidNamespace(libc: Libc): string {
  const out = new Uint8Array(64);
  const length = Number(libc.symbols.readlink(cString("/proc/self/ns/pid"), out, 64n));
  return length > 0 ? new TextDecoder().decode(out.subarray(0, length)) : "";
}

/** The first bytes of `name` in the folder `at`, read only when it is a file (no link, no FIFO). */
function readSmall(libc: Libc, at: number, name: string): string {
  const fd = libc.symbols.openat(at, cString(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "";
  const out = new Uint8Array(64);
  const length = Number(libc.symbols.read(fd, out, 64n));
  libc.symbols.close(fd);
  return length > 0 ? new TextDecoder().decode(out.subarray(0, length)) : "";
}

/**
 * Marks the scratch folder with this PID namespace, then removes the scratch folders an lspgate
 * left when it was killed before it could: those marked with this namespace and named for a
 * process that no longer exists (a folder of an lspgate in another namespace, inside a sandbox
 * sharing the folder, is never touched). Works inside the checked `sandbox` folder itself (its
 * open descriptor is made the working folder), never through its path. Deno's part needs
 * `--allow-read` and `--allow-write` on that folder's real path; else sweeps nothing.
 */
export function sweepScratch(libc: Libc, scratch: Scratch, name: string): void {
  const namespace = pidNamespace(libc);
  if (!namespace) return;
  const create = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  const mark = libc.symbols.openatMode(scratch.folder, cString("owner"), create, 0o600);
  if (mark < 0) return;
  const text = new TextEncoder().encode(namespace);
  const written = Number(libc.symbols.write(mark, text, BigInt(text.length)));
  libc.symbols.close(mark);
  if (written !== text.length) return;
  const back = libc.symbols.open(cString("."), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (back < 0) return;
  if (libc.symbols.fchdir(scratch.parent) !== 0) {
    libc.symbols.close(back);
    return;
  }
  try {
    for (const entry of Deno.readDirSync(".")) {
      const owner = /^(\d+)-[0-9a-f]{8}$/.exec(entry.name)?.[1];
      if (owner === undefined || !entry.isDirectory || entry.name === name) continue;
      if (readSmall(libc, scratch.parent, `${entry.name}/owner`) !== namespace) continue;
      if (libc.symbols.kill(Number(owner), 0) === 0 || errno(libc) !== ESRCH) continue;
      try {
        // Recursive removal opens each folder without following links (Rust's remove_dir_all).
        Deno.removeSync(entry.name, { recursive: true });
      } catch {
        // Raced by another launcher: left for the next start.
      }
    }
  } catch {
    // Not granted: nothing is swept.
  } finally {
    if (libc.symbols.fchdir(back) !== 0) fail(libc, "cannot return to the working folder");
    libc.symbols.close(back);
  }
}
