/**
 * Confines language servers: picks the backend that works here (bubblewrap, else Landlock) and
 * wraps a server's command in it. The backends live in `sandbox/`.
 *
 * Rationale (no layering): where bubblewrap works, Landlock is not added under it. Inside
 * bubblewrap's namespaces a server already sees only what is bound, read-only, has no network,
 * and no signal or abstract socket reaches outside its namespaces; Landlock would enforce nothing
 * more there (neither confines connect() to a UNIX socket file that is shown), and the layered
 * start loads an FFI-capable Deno per server. Measured here (median of 15 starts of /bin/true):
 * bubblewrap 11 ms, Landlock 17 ms, both layered 61 ms.
 *
 * @module
 */

import { bwrapUnavailableReason, wrapCommand } from "./sandbox/bwrap.ts";
import type { SandboxBackend, SandboxMode, SandboxSpec, WrappedCommand } from "./sandbox/common.ts";
import { landlockLimits, landlockSupport, wrapLandlock } from "./sandbox/landlock.ts";

export {
  bwrapAvailable,
  bwrapUnavailableReason,
  SANDBOX_HOME,
  wrapCommand,
} from "./sandbox/bwrap.ts";
export type { SandboxBackend, SandboxMode, SandboxSpec, WrappedCommand } from "./sandbox/common.ts";
export { landlockLimits, landlockSupport, wrapLandlock } from "./sandbox/landlock.ts";

/** What bubblewrap enforces (it leaves nothing of note out). */
const BWRAP_ENFORCED = [
  "only the root, the server's folders and the system's are mounted, read-only",
  "writes only to a private tmpfs /tmp",
  "no network",
  "own PID, IPC and UTS namespaces",
  "no capabilities",
];

/** The backend a mode resolves to here, and how status, doctor and permissions describe it. */
export interface SandboxChoice {
  mode: SandboxMode;
  /** The backend servers run under ("none": unconfined). */
  backend: SandboxBackend;
  /** False when the mode names a backend that does not work here: no server starts. */
  usable: boolean;
  /** One line: in force or not, which backend, what it does and does not enforce. */
  label: string;
  enforced: string[];
  notEnforced: string[];
  /** Why bubblewrap is not used (when it was considered and does not work). */
  bwrapReason?: string;
  /** Why Landlock is not used (when it was considered and does not work). */
  landlockReason?: string;
  /** The kernel's Landlock ABI, when Landlock was probed and works. */
  landlockAbi?: number;
}

/**
 * Resolves `mode`: `"auto"` is bubblewrap where it can create namespaces, else Landlock, else
 * none; `"bwrap"` and `"landlock"` are that backend or, where it does not work, no server at all.
 */
export async function chooseSandbox(
  mode: SandboxMode,
  options: { bwrap?: string } = {},
): Promise<SandboxChoice> {
  if (mode === "none") {
    return {
      mode,
      backend: "none",
      usable: true,
      label: "no: servers are NOT confined (sandbox none)",
      enforced: [],
      notEnforced: ["everything: servers run with this user's rights"],
    };
  }
  const bwrapReason = mode === "landlock" ? undefined : await bwrapUnavailableReason(options.bwrap);
  if (mode !== "landlock" && bwrapReason === undefined) {
    return {
      mode,
      backend: "bwrap",
      usable: true,
      label: "yes (bubblewrap: read-only workspace, no network, own PID namespace)",
      enforced: BWRAP_ENFORCED,
      notEnforced: [],
    };
  }
  if (mode === "bwrap") {
    return {
      mode,
      backend: "bwrap",
      usable: false,
      label: `no server starts: sandbox bwrap, but ${bwrapReason}`,
      enforced: [],
      notEnforced: [],
      bwrapReason,
    };
  }
  const landlock = await landlockSupport();
  if (landlock.abi >= 1) {
    const { enforced, notEnforced } = landlockLimits(landlock.abi, landlock.seccomp);
    return {
      mode,
      backend: "landlock",
      usable: true,
      label: `yes (Landlock ABI ${landlock.abi}: ${enforced.join(", ")}; not enforced: ` +
        `${notEnforced.join("; ")})${bwrapReason ? `; bubblewrap not used: ${bwrapReason}` : ""}`,
      enforced,
      notEnforced,
      bwrapReason,
      landlockAbi: landlock.abi,
    };
  }
  if (mode === "landlock") {
    return {
      mode,
      backend: "landlock",
      usable: false,
      label: `no server starts: sandbox landlock, but ${landlock.reason}`,
      enforced: [],
      notEnforced: [],
      landlockReason: landlock.reason,
    };
  }
  return {
    mode,
    backend: "none",
    usable: true,
    label: `no: servers are NOT confined (sandbox auto: ${bwrapReason}; Landlock unavailable: ` +
      `${landlock.reason})`,
    enforced: [],
    notEnforced: ["everything: servers run with this user's rights"],
    bwrapReason,
    landlockReason: landlock.reason,
  };
}

/**
 * Runs `command` under `mode` (or a backend already chosen): `"none"` returns it as is, a backend
 * wraps it or throws `SERVER_START_FAILED`, `"auto"` wraps it in the best backend that works here
 * and otherwise runs it unconfined.
 */
export async function sandboxCommand(
  mode: SandboxMode,
  command: string[],
  spec: SandboxSpec,
): Promise<WrappedCommand> {
  const backend = mode === "auto"
    ? (await chooseSandbox(mode, { bwrap: spec.bwrap })).backend
    : mode;
  if (backend === "none") return { command, sandboxed: false };
  if (backend === "bwrap") return await wrapCommand(command, spec);
  return await wrapLandlock(command, spec);
}
