// The server manager's types: its servers' states and entries, leases and overlay locks, its
// options, and what it reports of memory.
import type { LspGateError } from "../errors.ts";
import type { ProcessTable } from "./memory.ts";
import type { ServerClient } from "../lsp/server_client.ts";
import type { Adapter, ServerCommand } from "./adapter.ts";
import type { Telemetry } from "../telemetry.ts";
import type { Pick } from "./pick.ts";
import type { ChangeTracking, FileChange } from "./watcher.ts";
import type { BudgetPool } from "./budget.ts";

/** Server state, as `status` shows it. */
export type ServerState =
  | { kind: "starting"; since: number }
  | { kind: "running"; client: ServerClient; since: number; command: ServerCommand }
  | { kind: "crashed"; at: number; reason: string; stderr: string[] }
  | { kind: "failed"; at: number; error: LspGateError }
  | { kind: "disabled"; reason: string }
  | { kind: "stopped"; reason: string };

/** One (adapter, root) pair and the server that serves it. */
export interface ServerEntry {
  key: string;
  adapter: Adapter;
  root: string;
  state: ServerState;
  restarts: number;
  crashes: number[];
  lastUsed: number;
  inFlight: number;
  starting?: Promise<ServerClient>;
  /**
   * Disk state of the documents the running server has open, to notice edits made by other
   * tools. Kept across a crash, so the restarted server gets them opened again; cleared when a
   * server is stopped on purpose.
   */
  disk: Map<string, DiskState>;
}

/** What the manager last sent a server for one document, and the disk state it was read in. */
export interface DiskState {
  path: string;
  /** NaN once the watcher reported a change: read again before the next query. */
  mtime: number;
  size: number;
  /** The text sent (the server's view of it). */
  text: string;
  /** The document version the server was given with that text. */
  version: number;
}

/** A server ready for a query on one file. */
export interface Lease {
  entry: ServerEntry;
  client: ServerClient;
  pick: Pick;
  /** The file's real path, URI, and the text the server now has. */
  file: string;
  uri: string;
  text: string;
  /** Date.now() when the lease was handed out. */
  leasedAt: number;
  release(): void;
  /**
   * Gives up the lease's hold on its file before the lease ends (it keeps the server), for an
   * overlay of that file made by the same request (see `lockDocuments`).
   */
  releaseHold(): void;
}

/**
 * Files held for an overlay: while it is held, proposed texts may stand in the servers' views of
 * them, and other requests for these files wait. Release puts the disk's text back.
 */
export interface OverlayLock {
  /** The real paths held. */
  readonly paths: ReadonlySet<string>;
  /** Puts `text` in the server's view of the lease's file; the lease was taken with this lock. */
  overlay(lease: Lease, text: string): Promise<void>;
  /** Puts the disk's text back in every view given an overlay, then lets other requests in. */
  release(): Promise<void>;
}

/** Options of acquire() and acquireLinters(). */
export interface AcquireOptions {
  /** An overlay lock this request holds: its files are not waited for. */
  lock?: OverlayLock;
}

/**
 * Hears what the workspace watcher reports, for caches kept beside the manager: a batch of changed
 * files, or "lost" when changes were lost. It must not throw.
 */
export type ChangeListener = (changes: readonly FileChange[] | "lost") => void;

/**
 * Wraps a server's argv, e.g. in a sandbox; returns the argv to spawn, extra env, and what to
 * clean up once the process has exited (a sandbox's scratch folder).
 */
export type CommandWrapper = (
  command: ServerCommand,
  entry: { adapter: Adapter; root: string },
) => Promise<{
  command: string[];
  env?: Record<string, string>;
  hideProcessId?: boolean;
  cleanup?: () => Promise<void>;
}>;

/** Manager settings. */
export interface ManagerOptions {
  /** Where `server.start`, `server.ready` and `server.exit` events go, when asked. */
  telemetry?: Telemetry;
  workspace: string;
  adapters: readonly Adapter[];
  requestTimeoutMs: number;
  startTimeoutMs: number;
  /** Per adapter: a configured command, extra settings, a memory cap, or disabled. */
  serverConfig?: Record<
    string,
    {
      command?: string[];
      settings?: Record<string, unknown>;
      initializationOptions?: Record<string, unknown>;
      disabled?: boolean;
      /** The data limit of each of its processes (MiB): memory_cap.ts. */
      memoryCapMiB?: number;
    }
  >;
  wrap?: CommandWrapper;
  /** Reads a file the manager must send to a server (goes through the workspace boundary). */
  readFile: (path: string) => Promise<string>;
  /** Run each client in its own Worker with narrowed Deno permissions (default false). */
  isolate?: boolean;
  /** Stops servers unused for this long; 0 = never. */
  idleShutdownMs?: number;
  /**
   * Real paths of the roots the user marked trusted: only there may a project's own programs run
   * (the session passes none when servers are not sandboxed).
   */
  trustedRoots?: readonly string[];
  /**
   * How changes on disk reach the manager (`filesChanged`), from the workspace watcher. "exact":
   * every change made before a query has been delivered when it starts, so a file the watcher
   * covers and no change marked need not be checked on disk again. Default "off".
   */
  changeTracking?: () => ChangeTracking;
  /**
   * The memory budget this manager's servers count against (with other managers' in a daemon):
   * over it, idle servers are stopped, least recently used first.
   */
  budget?: BudgetPool;
}

/** The servers' memory as `status` shows it. */
export interface MemoryReport {
  budgetMiB?: number;
  /** The running servers' process trees together, where /proc can be read. */
  totalMiB?: number;
  /** Resident memory of each running server's process tree, by server key. */
  rssMiB: Map<string, number>;
  /** Why the servers are over the budget and kept so, when they are. */
  over?: string;
  /** The process table this report was measured from, for other trees asked about with it. */
  processes?: ProcessTable;
}
