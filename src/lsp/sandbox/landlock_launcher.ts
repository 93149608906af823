/**
 * The Landlock launcher: restricts itself with Landlock, then `execve`s the language server, which
 * inherits the restriction (and so does every process it starts).
 *
 * Run as `deno run --allow-ffi=LIBC landlock_launcher.ts probe LIBC` (prints the kernel's Landlock
 * ABI as JSON) or `… exec LIBC PLAN_JSON` (see {@link LaunchPlan}). It imports only its seccomp
 * filter, so that it starts fast, and it can also run from the `deno bundle` file (worker_entry.ts
 * hands it the arguments after {@link LAUNCH_ARG}).
 *
 * Rationale: Landlock needs no namespace, so it works where bubblewrap cannot nest (inside
 * sandbox-runtime, a container, another bubblewrap). landlock_restrict_self() and no_new_privs
 * bind the calling thread only: both are called from Deno's main thread, the one that then calls
 * execve(), so the restriction is what the new program starts with. Everything fails closed: a
 * step that fails ends the launcher before the server runs.
 *
 * @module
 */

import { socketFilter } from "./socket_filter.ts";

/** The argument that makes the bundled lspgate act as this launcher. */
export const LAUNCH_ARG = "--lspgate-landlock-launcher";

/** What the launcher does before it runs the server. */
export interface LaunchPlan {
  /** Paths the server may read and execute (files or folders); ones that cannot be opened are skipped. */
  readOnly: string[];
  /** Folders the server may read and write; ones that cannot be opened are skipped. */
  readWrite: string[];
  /** Devices the server may read and write (`/dev/null`…). */
  devices: string[];
  /** The private scratch folder, created here 0700 (it must not exist), with `home` and `tmp`. */
  scratch: string;
  /** The server's whole environment. */
  env: Record<string, string>;
  /** The server's argv; `command[0]` is an absolute path. */
  command: string[];
  /** Install the seccomp filter that refuses new sockets (the probe found seccomp works). */
  seccomp: boolean;
}

// Landlock's ABI (linux/landlock.h).
const SYS_CREATE = 444n;
const SYS_ADD_RULE = 445n;
const SYS_RESTRICT = 446n;
const CREATE_RULESET_VERSION = 1;
const RULE_PATH_BENEATH = 1;
const FS_EXECUTE = 1n;
const FS_WRITE_FILE = 1n << 1n;
const FS_READ_FILE = 1n << 2n;
const FS_READ_DIR = 1n << 3n;
const FS_REFER = 1n << 13n;
const FS_TRUNCATE = 1n << 14n;
const FS_IOCTL_DEV = 1n << 15n;
const NET_BIND_TCP = 1n;
const NET_CONNECT_TCP = 2n;
const SCOPE_ABSTRACT_UNIX = 1n;
const SCOPE_SIGNAL = 2n;
const PR_SET_NO_NEW_PRIVS = 38;
const PR_CAPBSET_READ = 23;
const PR_CAPBSET_DROP = 24;
const PR_CAP_AMBIENT = 47;
const PR_CAP_AMBIENT_CLEAR_ALL = 4;
const CAPABILITY_VERSION_3 = 0x20080522;
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;
// O_DIRECTORY is one of the flags whose value differs on arm64.
const O_DIRECTORY = Deno.build.arch === "aarch64" ? 0o40000 : 0o200000;

function libcOf(path: string) {
  return Deno.dlopen(path, {
    createRuleset: {
      name: "syscall",
      parameters: ["i64", "buffer", "usize", "u32"],
      result: "i64",
    },
    addRule: { name: "syscall", parameters: ["i64", "i32", "u32", "buffer", "u32"], result: "i64" },
    restrictSelf: { name: "syscall", parameters: ["i64", "i32", "u32"], result: "i64" },
    prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
    open: { parameters: ["buffer", "i32"], result: "i32" },
    close: { parameters: ["i32"], result: "i32" },
    mkdir: { parameters: ["buffer", "u32"], result: "i32" },
    execve: { parameters: ["buffer", "buffer", "buffer"], result: "i32" },
    capset: { parameters: ["buffer", "buffer"], result: "i32" },
    malloc: { parameters: ["usize"], result: "usize" },
    copyIn: { name: "memcpy", parameters: ["usize", "buffer", "usize"], result: "usize" },
    prctlFilter: {
      name: "prctl",
      parameters: ["i32", "u64", "buffer", "u64", "u64"],
      result: "i32",
    },
    getuid: { parameters: [], result: "u32" },
    kill: { parameters: ["i32", "i32"], result: "i32" },
    readlink: { parameters: ["buffer", "buffer", "usize"], result: "isize" },
    // Addresses as integers, read with memcpy: Deno's pointer views need an unscoped --allow-ffi.
    errnoLocation: { name: "__errno_location", parameters: [], result: "usize" },
    strerror: { parameters: ["i32"], result: "usize" },
    strdup: { parameters: ["buffer"], result: "usize" },
    strlen: { parameters: ["usize"], result: "usize" },
    memcpy: { parameters: ["buffer", "usize", "usize"], result: "usize" },
  });
}

type Libc = ReturnType<typeof libcOf>;

/** The filesystem rights a kernel of this ABI knows, every one of them handled (denied unless granted). */
function fsRights(abi: number): bigint {
  let rights = (1n << 13n) - 1n;
  if (abi >= 2) rights |= FS_REFER;
  if (abi >= 3) rights |= FS_TRUNCATE;
  if (abi >= 5) rights |= FS_IOCTL_DEV;
  return rights;
}

/** Rights that apply to a file (a rule on a file with any other right is EINVAL). */
function fileRights(abi: number): bigint {
  return FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | (abi >= 3 ? FS_TRUNCATE : 0n) |
    (abi >= 5 ? FS_IOCTL_DEV : 0n);
}

function cString(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(text + "\0");
}

/**
 * errno as it reads now: for messages, and for ESRCH where a wrong word only leaves a folder.
 * JavaScript runs between a libc call and this read, and Deno's runtime on this thread was seen to
 * overwrite errno meanwhile (ENOENT after mkdir's EEXIST, and after Landlock's EINVAL): no
 * decision that could fail the launch rests on it.
 */
function errno(libc: Libc): number {
  const value = new Int32Array(1);
  libc.symbols.memcpy(value, libc.symbols.errnoLocation(), 4n);
  return value[0];
}

function readCString(libc: Libc, address: bigint): string {
  const bytes = new Uint8Array(Number(libc.symbols.strlen(address)));
  libc.symbols.memcpy(bytes, address, BigInt(bytes.length));
  return new TextDecoder().decode(bytes);
}

function fail(libc: Libc, what: string, code = errno(libc)): never {
  const reason = `${readCString(libc, BigInt(libc.symbols.strerror(code)))} (errno ${code})`;
  console.error(`lspgate landlock launcher: ${what}: ${reason}`);
  Deno.exit(126);
}

/** The kernel's Landlock ABI version, or a negative errno (ENOSYS, EOPNOTSUPP: none here). */
function abiVersion(libc: Libc): number {
  const abi = Number(libc.symbols.createRuleset(SYS_CREATE, null, 0n, CREATE_RULESET_VERSION));
  return abi < 0 ? -errno(libc) : abi;
}

/** Whether `path` opens as a folder (symlinks followed), asked without errno. */
function isFolder(libc: Libc, path: string): boolean {
  const fd = libc.symbols.open(cString(path), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  libc.symbols.close(fd);
  return true;
}

function makeDir(libc: Libc, path: string, exclusive: boolean): void {
  if (libc.symbols.mkdir(cString(path), 0o700) === 0) return;
  const code = errno(libc);
  // A parent that is already a folder is fine, however errno reads.
  if (!exclusive && isFolder(libc, path)) return;
  fail(
    libc,
    `cannot create ${path} for the server's private scratch folder (set XDG_RUNTIME_DIR or ` +
      "TMPDIR to a folder this process may write, outside the workspace)",
    code,
  );
}

/** Creates the scratch folder (its parents too, 0700) and its `home` and `tmp`. */
function makeScratch(libc: Libc, scratch: string): void {
  const parts = scratch.split("/").filter(Boolean);
  for (let i = 1; i < parts.length; i++) makeDir(libc, "/" + parts.slice(0, i).join("/"), false);
  makeDir(libc, scratch, true);
  makeDir(libc, `${scratch}/home`, true);
  makeDir(libc, `${scratch}/tmp`, true);
}

const ESRCH = 3;

/** This process's PID namespace (`pid:[4026531836]`): a PID means a process only within it. */
function pidNamespace(libc: Libc): string {
  const out = new Uint8Array(64);
  const length = Number(libc.symbols.readlink(cString("/proc/self/ns/pid"), out, 64n));
  return length > 0 ? new TextDecoder().decode(out.subarray(0, length)) : "";
}

/**
 * Marks `scratch` with this PID namespace, then removes the scratch folders an lspgate left when
 * it was killed before it could: those marked with this namespace and named for a process that no
 * longer exists (a folder of an lspgate in another namespace, inside a sandbox sharing the folder,
 * is never touched). Needs `--allow-read` and `--allow-write` on the parent; else sweeps nothing.
 */
function sweepScratch(libc: Libc, scratch: string): void {
  const parent = scratch.slice(0, scratch.lastIndexOf("/"));
  const namespace = pidNamespace(libc);
  if (!namespace) return;
  try {
    Deno.writeTextFileSync(`${scratch}/owner`, namespace);
    for (const entry of Deno.readDirSync(parent)) {
      const owner = /^(\d+)-[0-9a-f]{8}$/.exec(entry.name)?.[1];
      if (owner === undefined || !entry.isDirectory) continue;
      const folder = `${parent}/${entry.name}`;
      try {
        if (Deno.readTextFileSync(`${folder}/owner`) !== namespace) continue;
        if (libc.symbols.kill(Number(owner), 0) === 0 || errno(libc) !== ESRCH) continue;
        Deno.removeSync(folder, { recursive: true });
      } catch {
        // Unmarked, or raced by another launcher: left for the next start.
      }
    }
  } catch {
    // Not granted: nothing is swept.
  }
}

function addPath(libc: Libc, ruleset: number, path: string, access: bigint, abi: number): void {
  // A path that cannot be opened (missing, or not this process's to see) is granted nothing:
  // skipping only ever grants less.
  const fd = libc.symbols.open(cString(path), O_PATH | O_CLOEXEC);
  if (fd < 0) return;
  const attr = new Uint8Array(12);
  const view = new DataView(attr.buffer);
  view.setBigUint64(0, access, true);
  view.setInt32(8, fd, true);
  let added = libc.symbols.addRule(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, attr, 0);
  if (added < 0) {
    // Not a folder (EINVAL): only a file's rights apply. Tried on any failure, not on errno's
    // word, and fewer rights can only fail again or grant less.
    view.setBigUint64(0, access & fileRights(abi), true);
    added = libc.symbols.addRule(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, attr, 0);
  }
  if (added < 0) fail(libc, `cannot add a Landlock rule for ${path}`);
  libc.symbols.close(fd);
}

/**
 * Drops every capability, for good: a server started by root would otherwise keep them all
 * (Landlock does not take them; bubblewrap's `--cap-drop ALL` does the same).
 */
function dropCapabilities(libc: Libc): void {
  libc.symbols.prctl(PR_CAP_AMBIENT, BigInt(PR_CAP_AMBIENT_CLEAR_ALL), 0n, 0n, 0n);
  const root = libc.symbols.getuid() === 0;
  for (let cap = 0n; cap < 64n; cap++) {
    const held = libc.symbols.prctl(PR_CAPBSET_READ, cap, 0n, 0n, 0n);
    if (held < 0) break; // Past the last capability this kernel knows.
    if (held === 0 || libc.symbols.prctl(PR_CAPBSET_DROP, cap, 0n, 0n, 0n) === 0) continue;
    // Without CAP_SETPCAP the bounding set cannot shrink; only root would regain it at execve.
    if (root) fail(libc, `cannot drop capability ${cap} from the bounding set`);
  }
  const header = new Uint32Array([CAPABILITY_VERSION_3, 0]);
  if (libc.symbols.capset(header, new Uint32Array(6)) !== 0) fail(libc, "cannot drop capabilities");
}

const PR_SET_SECCOMP = 22;
const SECCOMP_MODE_FILTER = 2n;
/** Installs {@link socketFilter} (no_new_privs must be set); false where seccomp is refused. */
function installSocketFilter(libc: Libc): boolean {
  const filter = socketFilter();
  if (!filter) return false;
  const address = libc.symbols.malloc(BigInt(filter.length));
  libc.symbols.copyIn(address, filter, BigInt(filter.length));
  // struct sock_fprog: the instruction count, padding, then the filter's address.
  const program = new DataView(new ArrayBuffer(16));
  program.setUint16(0, filter.length / 8, true);
  program.setBigUint64(8, BigInt(address), true);
  const result = libc.symbols.prctlFilter(
    PR_SET_SECCOMP,
    SECCOMP_MODE_FILTER,
    new Uint8Array(program.buffer),
    0n,
    0n,
  );
  return result === 0;
}

/** Restricts this thread (filesystem, TCP, scopes as far as the ABI goes) as `plan` says. */
function restrict(libc: Libc, plan: LaunchPlan, abi: number): void {
  const all = fsRights(abi);
  const attr = new BigUint64Array([
    all,
    abi >= 4 ? NET_BIND_TCP | NET_CONNECT_TCP : 0n,
    abi >= 6 ? SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL : 0n,
  ]);
  const size = abi >= 6 ? 24n : abi >= 4 ? 16n : 8n;
  const ruleset = Number(libc.symbols.createRuleset(SYS_CREATE, attr, size, 0));
  if (ruleset < 0) fail(libc, "cannot create a Landlock ruleset");
  const read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
  for (const path of plan.readOnly) addPath(libc, ruleset, path, read, abi);
  const device = FS_READ_FILE | FS_WRITE_FILE | (abi >= 3 ? FS_TRUNCATE : 0n) |
    (abi >= 5 ? FS_IOCTL_DEV : 0n);
  for (const path of plan.devices) addPath(libc, ruleset, path, device, abi);
  for (const path of [...plan.readWrite, plan.scratch]) addPath(libc, ruleset, path, all, abi);
  // No TCP port rule: every bind and connect is denied.
  dropCapabilities(libc);
  if (libc.symbols.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) !== 0) {
    fail(libc, "cannot set no_new_privs");
  }
  if (plan.seccomp && !installSocketFilter(libc)) fail(libc, "cannot install the socket filter");
  if (libc.symbols.restrictSelf(SYS_RESTRICT, ruleset, 0) < 0) {
    fail(libc, "landlock_restrict_self failed");
  }
  libc.symbols.close(ruleset);
}

/** A NULL-terminated array of C strings (copied by strdup: execve replaces this process anyway). */
function cArray(libc: Libc, items: string[]): BigUint64Array<ArrayBuffer> {
  const pointers = new BigUint64Array(items.length + 1);
  items.forEach((item, i) => pointers[i] = BigInt(libc.symbols.strdup(cString(item))));
  return pointers;
}

/** A scratch folder's name: `<lspgate's pid>-<8 hex digits>` in a folder named `sandbox`. */
const SCRATCH = /\/sandbox\/\d+-[0-9a-f]{8}$/;

/**
 * Runs the launcher with its command-line arguments: `probe LIBC`, `exec LIBC PLAN`, or
 * `remove SCRATCH` (for an lspgate that may not write there itself; granted that folder alone).
 */
export function launch(args: string[]): void {
  const [verb, libcPath, planJson] = args;
  if (verb === "remove" && SCRATCH.test(libcPath ?? "")) {
    Deno.removeSync(libcPath, { recursive: true });
    Deno.exit(0);
  }
  if ((verb !== "probe" && verb !== "exec") || !libcPath) {
    console.error("usage: landlock_launcher.ts probe LIBC | exec LIBC PLAN_JSON | remove SCRATCH");
    Deno.exit(2);
  }
  const libc = libcOf(libcPath);
  const abi = abiVersion(libc);
  if (verb === "probe") {
    // The probe ends here, so trying the filter on itself costs nothing.
    const noNewPrivs = libc.symbols.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) === 0;
    console.log(JSON.stringify({ abi, seccomp: noNewPrivs && installSocketFilter(libc) }));
    Deno.exit(0);
  }
  if (abi < 1) fail(libc, "Landlock is not available in this kernel", -abi);
  const plan: LaunchPlan = JSON.parse(planJson);
  makeScratch(libc, plan.scratch);
  sweepScratch(libc, plan.scratch);
  restrict(libc, plan, abi);
  const argv = cArray(libc, plan.command);
  const envp = cArray(libc, Object.entries(plan.env).map(([k, v]) => `${k}=${v}`));
  libc.symbols.execve(cString(plan.command[0]), argv, envp);
  fail(libc, `cannot run ${plan.command[0]}`);
}

if (import.meta.main && import.meta.url.endsWith("/landlock_launcher.ts")) launch(Deno.args);
