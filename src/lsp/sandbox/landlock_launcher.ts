/**
 * The Landlock launcher: restricts itself with Landlock, then `execve`s the language server, which
 * inherits the restriction (and so does every process it starts).
 *
 * Run as `deno run --allow-ffi=LIBC landlock_launcher.ts probe LIBC` (prints the kernel's Landlock
 * ABI as JSON) or `… exec LIBC PLAN_JSON` (see {@link LaunchPlan}). It imports only its libc
 * binding, scratch folder and seccomp filter, so that it starts fast, and it can also run from the
 * `deno bundle` file (worker_entry.ts hands it the arguments after {@link LAUNCH_ARG}).
 *
 * Rationale: Landlock needs no namespace, so it works where bubblewrap cannot nest (inside
 * sandbox-runtime, a container, another bubblewrap). landlock_restrict_self() and no_new_privs
 * bind the calling thread only: both are called from Deno's main thread, the one that then calls
 * execve(), so the restriction is what the new program starts with. Everything fails closed: a
 * step that fails ends the launcher before the server runs.
 *
 * @module
 */

import { cString, errno, fail, type Libc, libcOf, O_CLOEXEC, O_PATH } from "./landlock_libc.ts";
import { makeScratch, type Scratch, sweepScratch } from "./landlock_scratch.ts";
import { socketFilter } from "./socket_filter.ts";
import { VERSION } from "../../version.ts";

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

/** The kernel's Landlock ABI version, or a negative errno (ENOSYS, EOPNOTSUPP: none here). */
function abiVersion(libc: Libc): number {
  const abi = Number(libc.symbols.createRuleset(SYS_CREATE, null, 0n, CREATE_RULESET_VERSION));
  return abi < 0 ? -errno(libc) : abi;
}

function addPath(libc: Libc, ruleset: number, path: string, access: bigint, abi: number): void {
  // A path that cannot be opened (missing, or not this process's to see) is granted nothing:
  // skipping only ever grants less.
  const fd = libc.symbols.open(cString(path), O_PATH | O_CLOEXEC);
  if (fd < 0) return;
  addRule(libc, ruleset, fd, path, access, abi);
  libc.symbols.close(fd);
}

/** Grants `access` beneath the open `fd` (`path` names it in a failure). */
function addRule(
  libc: Libc,
  ruleset: number,
  fd: number,
  path: string,
  access: bigint,
  abi: number,
) {
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
function restrict(libc: Libc, plan: LaunchPlan, scratch: Scratch, abi: number): void {
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
  for (const path of plan.readWrite) addPath(libc, ruleset, path, all, abi);
  // The scratch folder by the descriptor makeScratch checked, not by its path again.
  addRule(libc, ruleset, scratch.folder, plan.scratch, all, abi);
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
    // Its version, so that lspgate uses no launcher of another (a companion file left beside a
    // newer bundle could ignore what a newer plan asks).
    console.log(
      JSON.stringify({ abi, seccomp: noNewPrivs && installSocketFilter(libc), version: VERSION }),
    );
    Deno.exit(0);
  }
  if (abi < 1) fail(libc, "Landlock is not available in this kernel", -abi);
  const plan: LaunchPlan = JSON.parse(planJson);
  const scratch = makeScratch(libc, plan.scratch);
  sweepScratch(libc, scratch, plan.scratch.slice(plan.scratch.lastIndexOf("/") + 1));
  restrict(libc, plan, scratch, abi);
  libc.symbols.close(scratch.folder);
  libc.symbols.close(scratch.parent);
  const argv = cArray(libc, plan.command);
  const envp = cArray(libc, Object.entries(plan.env).map(([k, v]) => `${k}=${v}`));
  libc.symbols.execve(cString(plan.command[0]), argv, envp);
  fail(libc, `cannot run ${plan.command[0]}`);
}

if (import.meta.main && import.meta.url.endsWith("/landlock_launcher.ts")) launch(Deno.args);
