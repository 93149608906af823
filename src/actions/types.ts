import type { ChangeTracking } from "../servers/watcher.ts";
import type * as z from "../zod.ts";
import type { Access } from "../permissions/policy.ts";
import type { WorkspaceRoot } from "../permissions/workspace.ts";
import type { ServerManager } from "../servers/manager.ts";

/** What every action may use: the boundary, the servers, the caller's cancel signal. */
export interface ActionContext {
  workspace: WorkspaceRoot;
  manager: ServerManager;
  signal: AbortSignal;
  /** Aborts when the caller will send nothing more (EOF): syntax work then gets ~1 s more. */
  ending?: AbortSignal;
  /** Per-request timeout in ms for each server request made on the caller's behalf. */
  timeoutMs: number;
  /** How long to wait for a server to load its project before answering from what it has. */
  readyTimeoutMs: number;
  /** Static facts for `status`. */
  session: SessionFacts;
  /** Remarks the answer must carry besides its result; the session appends them. */
  notes?: ActionNote[];
}

/** A remark an answer carries besides its result (e.g. the other symbols an ambiguous query names). */
export interface ActionNote {
  /** A paragraph appended to the text. */
  text: string;
  /** Merged into `details`, for programs. */
  details: Record<string, unknown>;
}

/** Facts about this lspgate process, for `status`. */
export interface SessionFacts {
  role: "main" | "subagent";
  allowMutations: boolean;
  /** How the servers are confined, in words. */
  sandbox: string;
  /** Whether the servers run confined; every answer's details say it. */
  sandboxed: boolean;
  /** The confinement in force: "bwrap", "landlock" or "none"; every answer's details say it. */
  sandboxBackend?: "bwrap" | "landlock" | "none";
  /** Roots whose own programs may run (sandboxed); empty when none or when not sandboxed. */
  trustedRoots: readonly string[];
  /** Each server's client runs in a Worker allowed to spawn only its server (`clientWorkers`). */
  clientWorkers?: boolean;
  startedAt: number;
  version: string;
  /**
   * How changes other tools make on disk are followed (see WorkspaceWatcher.tracking); a daemon's
   * client has none of its own (the daemon answers `status`).
   */
  changeTracking?(): ChangeTracking;
  /** Where the workspace watcher runs, and its process's pid where it has one of its own. */
  watcher?(): {
    runsOn: "main thread" | "worker" | "process" | undefined;
    pid?: number;
    shared?: boolean;
  };
  /** The pid of the daemon that serves this session, when a daemon does. */
  daemonPid?: number;
  /** What the session set aside or repaired on its own (an ignored workspace config…). */
  notices?(): readonly string[];
}

/** An action's answer: text for the model, details for programs. */
export interface ActionResult {
  text: string;
  details: Record<string, unknown>;
}

/** One row of the action table. */
export interface ActionDef<S extends z.ZodMiniType = z.ZodMiniType> {
  name: string;
  /** One line for the README and the MCP tool description. */
  summary: string;
  schema: S;
  /** read or write; may depend on the input (rename preview is read, apply is write). */
  access: Access | ((input: z.infer<S>) => Access);
  run(input: z.infer<S>, context: ActionContext): Promise<ActionResult>;
}

/** Declares an action with its schema's type flowing into `run`. */
export function defineAction<S extends z.ZodMiniType>(def: ActionDef<S>): ActionDef {
  return def as unknown as ActionDef;
}
