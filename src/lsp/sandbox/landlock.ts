/**
 * The Landlock backend: the server is started by a small Deno launcher
 * (landlock_launcher.ts) that restricts itself with Landlock and then becomes the server.
 *
 * Rationale: bubblewrap needs namespaces, which cannot be created inside another sandbox
 * (sandbox-runtime, a container, bubblewrap itself). Landlock needs none: an unprivileged process
 * restricts itself and everything it starts, and it stacks under every such sandbox. What it does
 * not do is hide: no PID namespace, no mount namespace (see {@link landlockLimits}).
 *
 * Architecture Invariant: the launcher's grant is `--allow-ffi` on libc and read and write on the
 * scratch folders' parent, given on its own command line; lspgate itself never loads native code.
 *
 * @module
 */

import { dirname, join } from "../../posix_path.ts";
import { LspGateError } from "../../errors.ts";
import { runtimeFolderPath } from "../../fs.ts";
import { checkRuntimeEntry, ensureRuntimeFolderSync } from "../../runtime_folder.ts";
import {
  depth,
  realPath,
  type SandboxSpec,
  serverEnvironment,
  SYSTEM_DIRS,
  SYSTEM_ETC,
  type WrappedCommand,
} from "./common.ts";
import { LAUNCH_ARG, type LaunchPlan } from "./landlock_launcher.ts";
import { V8_FLAGS_ARG } from "../../v8_flags.ts";
import { libcProgramScript, refuseCompanion } from "../../libc_programs.ts";
import { VERSION } from "../../version.ts";

/** Where glibc lives on the distributions lspgate runs on (musl has no libc.so.6: no Landlock). */
const LIBC_CANDIDATES = [
  "/lib/x86_64-linux-gnu/libc.so.6",
  "/usr/lib/x86_64-linux-gnu/libc.so.6",
  "/lib/aarch64-linux-gnu/libc.so.6",
  "/usr/lib/aarch64-linux-gnu/libc.so.6",
  "/lib64/libc.so.6",
  "/usr/lib64/libc.so.6",
  "/usr/lib/libc.so.6",
];

/** Devices a server may read and write; never `/dev` whole (a root server would read the disks). */
const DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

/** Whether Landlock works here: the kernel's ABI (0 when none) and why not, when not. */
export interface LandlockSupport {
  abi: number;
  /** The launcher's seccomp filter refusing new sockets works here. */
  seccomp?: boolean;
  /** The libc the launcher loads (its `--allow-ffi` grant). */
  libc?: string;
  reason?: string;
}

let support: Promise<LandlockSupport> | undefined;

/** Probes Landlock once (the launcher asks the kernel for its ABI), then answers from the cache. */
export function landlockSupport(): Promise<LandlockSupport> {
  support ??= probe();
  return support;
}

/** The libc the launcher would load, or undefined when none is found. */
export function libcPath(): string | undefined {
  for (const path of LIBC_CANDIDATES) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // Not here (or not readable by this process): the next.
    }
  }
  return undefined;
}

async function probe(): Promise<LandlockSupport> {
  const libc = libcPath();
  if (libc === undefined) {
    return { abi: 0, reason: `no glibc found (looked for ${LIBC_CANDIDATES.join(", ")})` };
  }
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [...launcherArgs(libc), "probe", libc],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr).trim();
    if (!out.success) return { abi: 0, libc, reason: `the launcher failed: ${stderr}` };
    const { abi, seccomp, version } = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      abi: number;
      seccomp: boolean;
      version?: string;
    };
    if (version !== VERSION) {
      // Only the bundle's companion can be another version's: the bundle is then the launcher.
      if (refuseCompanion()) return await probe();
      return { abi: 0, libc, reason: `the launcher is lspgate ${version}'s, not ${VERSION}'s` };
    }
    if (abi >= 1) return { abi, libc, seccomp };
    // -ENOSYS: a kernel without it; -EOPNOTSUPP: built in but not enabled (lsm= boot option).
    const reason = abi === -38
      ? "the kernel has no Landlock (needs Linux 5.13+)"
      : abi === -95
      ? "Landlock is not enabled in this kernel (boot option lsm=…,landlock)"
      : `the kernel refused Landlock (errno ${-abi}; a seccomp filter may block it)`;
    return { abi: 0, libc, reason };
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) {
      return {
        abi: 0,
        libc,
        reason: `this process may not run ${Deno.execPath()} (the launcher; no --allow-run for it)`,
      };
    }
    return { abi: 0, libc, reason: `the launcher could not run: ${(error as Error).message}` };
  }
}

/**
 * `deno run` arguments that start the launcher with `--allow-ffi` on `libc` and nothing else.
 * From source it is landlock_launcher.ts; from the `deno bundle` file, where every module has the
 * bundle's URL, the bundle's companion beside it, or the bundle itself, with {@link LAUNCH_ARG}.
 */
export function launcherArgs(libc: string, grants: string[] = [`--allow-ffi=${libc}`]): string[] {
  const here = new URL(import.meta.url);
  const source = here.pathname.endsWith("/sandbox/landlock.ts")
    ? new URL("./landlock_launcher.ts", here)
    : undefined;
  const script = libcProgramScript(here, source, LAUNCH_ARG);
  // No config: the launcher runs in the workspace, whose deno.json must not configure it; no
  // prompt: its stdin is the server's. lspgate's own V8 flags: V8 takes a script's code cache only
  // from a run with the same flags, so a launcher run without them compiled the whole bundle anew
  // (~80 ms each server start) and left a cache the next lspgate start could not use.
  return ["run", "--no-config", "--no-prompt", "--quiet", V8_FLAGS_ARG, ...grants, ...script];
}

/** What Landlock enforces at this ABI, and what it does not (for status, doctor, permissions). */
export function landlockLimits(
  abi: number,
  seccomp = true,
): { enforced: string[]; notEnforced: string[] } {
  const enforced = [
    "reads only the root, the server's folders and the system's",
    "writes only to a private scratch folder",
    "no capabilities",
  ];
  const notEnforced = [
    "no PID namespace (other processes and their command lines show in /proc)",
    "no mount hiding (names and metadata of files elsewhere stay visible to stat)",
  ];
  if (seccomp) enforced.push("no new UNIX, IP or packet sockets (seccomp)");
  if (abi >= 4) enforced.push("TCP bind/connect denied");
  if (!seccomp) {
    notEnforced.push(
      abi >= 4
        ? "UDP and UNIX socket files not restricted (seccomp refused here)"
        : `network not restricted (Landlock ABI ${abi} < 4, seccomp refused here)`,
    );
  }
  if (abi >= 6) enforced.push("abstract UNIX sockets and signals scoped to the sandbox");
  else notEnforced.push(`abstract UNIX sockets and signals not scoped (Landlock ABI ${abi} < 6)`);
  return { enforced, notEnforced };
}

/**
 * The argv that runs `command` under Landlock as `spec` says: read and execute on the system's
 * programs, `/proc`, the workspace (read-write only when `spec.workspaceWritable`) and
 * `spec.readOnlyPaths`; read-write on `spec.writablePaths` and a private scratch folder (0700,
 * under lspgate's runtime folder) that is the server's HOME and TMPDIR; nothing else; no TCP; no
 * capabilities; a host environment reduced to PATH and locale. Throws SERVER_START_FAILED where
 * Landlock does not work.
 */
export async function wrapLandlock(command: string[], spec: SandboxSpec): Promise<WrappedCommand> {
  const found = await landlockSupport();
  if (found.abi < 1 || found.libc === undefined) {
    throw new LspGateError(
      "SERVER_START_FAILED",
      `Cannot sandbox the language server with Landlock: ${found.reason?.replace(/\.$/, "")}. ` +
        `Set the sandbox mode to "auto" or "bwrap".`,
      { reason: found.reason },
    );
  }
  const workspace = realPath(spec.workspace);
  if (workspace === undefined) {
    const message = `Workspace ${spec.workspace} does not exist.`;
    throw new LspGateError("FILE_NOT_FOUND", message, { path: spec.workspace });
  }
  const readOnly = spec.readOnlyPaths.map(realPath).filter((p) => p !== undefined);
  const readWrite: string[] = [];
  for (const path of spec.writablePaths ?? []) {
    if (realPath(path) === undefined) Deno.mkdirSync(path, { recursive: true });
    readWrite.push(realPath(path)!);
  }
  (spec.workspaceWritable ? readWrite : readOnly).push(workspace);
  if ([...readOnly, ...readWrite].some((path) => depth(path) === 0)) {
    const message = "Allowing / in the sandbox would undo it; name narrower paths.";
    throw new LspGateError("INVALID_INPUT", message, {});
  }
  const scratch = join(scratchParent(), `${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`);
  const home = join(scratch, "home");
  const plan: LaunchPlan = {
    readOnly: [...SYSTEM_DIRS, ...SYSTEM_ETC, "/proc", ...readOnly],
    readWrite,
    devices: DEVICES,
    scratch,
    env: serverEnvironment({ HOME: home, TMPDIR: join(scratch, "tmp") }, spec.env),
    command,
    seccomp: found.seccomp === true,
  };
  return {
    command: [
      Deno.execPath(),
      // Read and write on the scratch folders' parent, to sweep those a killed lspgate left.
      ...launcherArgs(found.libc, [
        `--allow-ffi=${found.libc}`,
        `--allow-read=${sweepGrant(scratch)}`,
        `--allow-write=${sweepGrant(scratch)}`,
      ]),
      "exec",
      found.libc,
      JSON.stringify(plan),
    ],
    home,
    sandboxed: true,
    cleanup: () => removeScratch(scratch, found.libc!),
  };
}

/**
 * `<runtime folder>/sandbox`, where each server's scratch folder lives. The runtime folder and
 * `sandbox` are refused (PERMISSION_DENIED, naming the path) when either is a symlink, another
 * user's, or not mode 0700: a link there would put the server's writable folder, and the sweep of
 * old ones, in its target. The launcher checks the same again on what it opens.
 */
function scratchParent(): string {
  const runtime = runtimeFolderPath();
  const sandbox = join(runtime, "sandbox");
  try {
    ensureRuntimeFolderSync();
    checkRuntimeEntry(sandbox, "folder");
  } catch (error) {
    // Not this process's to look at or write in: the launcher checks the same on what it opens.
    if (error instanceof LspGateError) throw error;
  }
  return sandbox;
}

/**
 * The scratch folders' parent as the launcher's Deno sees it when it sweeps from inside the
 * folder (its working folder, named by the kernel: links above the runtime folder resolved, none
 * below it, where the launcher follows none).
 */
function sweepGrant(scratch: string): string {
  const sandbox = dirname(scratch);
  try {
    // The runtime folder itself was checked (scratchParent): no link, so only those above it
    // resolve. Where this process may not read it, the path as named.
    return join(Deno.realPathSync(dirname(sandbox)), "sandbox");
  } catch {
    return sandbox;
  }
}

/** Removes a server's scratch folder: directly where lspgate may write there, else by the launcher. */
async function removeScratch(scratch: string, libc: string): Promise<void> {
  try {
    // Only inside folders that are still lspgate's own: a link put there since is not followed.
    scratchParent();
  } catch {
    return;
  }
  try {
    await Deno.remove(scratch, { recursive: true });
    return;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    if (!(error instanceof Deno.errors.NotCapable)) return;
  }
  // No write grant here: a launcher granted that one folder and nothing else removes it.
  const grants = [`--allow-read=${scratch}`, `--allow-write=${scratch}`];
  await new Deno.Command(Deno.execPath(), {
    args: [...launcherArgs(libc, grants), "remove", scratch],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output().catch(() => {});
}
