import { LspGateError, toLspGateError } from "../errors.ts";
import type { ServerClient } from "../lsp/server_client.ts";
import type { Adapter } from "./adapter.ts";
import { type Pick, refuseFile } from "./pick.ts";
import { DocumentLocks } from "./document_locks.ts";
import type { FileChange } from "./watcher.ts";
import { overlayLock } from "./overlay_lock.ts";
import { toFileUrl } from "./uri.ts";
export { mergeSettings } from "./server_options.ts";
import { budgetServers, measureServers } from "./memory.ts";
import type { BudgetMember } from "./budget.ts";
import { PickCache } from "./pick_cache.ts";
import { DiskSync } from "./disk_sync.ts";
import { ServerStarter } from "./server_start.ts";
import { idleCheckMs, recordExit, startRefusal, stopIdle, stopServer } from "./lifecycle.ts";

import type {
  AcquireOptions,
  ChangeListener,
  Lease,
  ManagerOptions,
  MemoryReport,
  OverlayLock,
  ServerEntry,
} from "./manager_types.ts";
export type {
  AcquireOptions,
  ChangeListener,
  CommandWrapper,
  DiskState,
  Lease,
  ManagerOptions,
  MemoryReport,
  OverlayLock,
  ServerEntry,
  ServerState,
} from "./manager_types.ts";

/** Starts servers lazily per (adapter, root), reuses them, restarts crashed ones, stops them all. */
export class ServerManager {
  readonly #entries = new Map<string, ServerEntry>();
  readonly #picks: PickCache;
  readonly #locks = new DocumentLocks();
  readonly #disk: DiskSync;
  readonly #starter: ServerStarter;
  #idleTimer?: ReturnType<typeof setInterval>;
  #closed = false;
  readonly #changeListeners = new Set<ChangeListener>();
  #leaveBudget?: () => Promise<void>;
  /** This manager as the memory budget's pool sees it. */
  readonly #budgetMember: BudgetMember;
  /** What a prestart waits for: the spawn of its entry's server (see prestart). */
  readonly #spawning = new Map<ServerEntry, { spawned: Promise<void>; resolve: () => void }>();
  #memory: MemoryReport = { rssMiB: new Map() };

  constructor(readonly options: ManagerOptions) {
    this.#picks = new PickCache(options);
    this.#disk = new DiskSync(options, this.#locks, (file) => this.pick(file));
    this.#starter = new ServerStarter(options, {
      closed: () => this.#closed,
      reopen: (entry, client, paths) => this.#disk.reopen(entry, client, paths),
      exited: (entry, client, info) => recordExit(entry, client, info, options.telemetry),
      spawning: (entry) => {
        this.#spawning.get(entry)?.resolve();
        this.#spawning.delete(entry);
      },
    });
    if (options.idleShutdownMs) {
      this.#idleTimer = setInterval(
        () => this.#stopIdle().catch(() => {}),
        idleCheckMs(options.idleShutdownMs),
      );
    }
    this.#budgetMember = {
      servers: (processes) => budgetServers(this.entries(), processes),
      stop: async (key, reason) => {
        const entry = this.#entries.get(key);
        if (entry && !this.#closed) await this.#stop(entry, reason);
      },
    };
    this.#leaveBudget = options.budget?.join(this.#budgetMember);
  }

  /** The adapter and root for a file, or undefined when no adapter handles its type. */
  pick(file: string): Promise<Pick | undefined> {
    return this.#picks.pick(file);
  }

  /**
   * Starts the server `file` (a real path in the workspace) would be asked of, without waiting,
   * when none has been started yet: a session's first question then has its server spawned before
   * its action's code loads and its input is checked (~7 ms), and that work runs while the server
   * starts. Resolves once the server is being spawned (or will not be). What goes wrong (no
   * server, a refusal, a failed start) is left for the question.
   */
  async prestart(file: string): Promise<void> {
    if (this.#closed || this.anyStarted) return;
    try {
      const pick = await this.pick(file);
      if (!pick || this.anyStarted) return;
      await refuseFile(this.options, pick, file);
      const entry = this.#entry(pick.adapter, pick.root);
      // Shared by two first queries that met here at once (the second would wait for the start).
      let wait = this.#spawning.get(entry);
      if (!wait && !entry.starting) {
        let resolve!: () => void;
        const spawned = new Promise<void>((done) => resolve = done);
        this.#spawning.set(entry, wait = { spawned, resolve });
      }
      const started = this.#clientOf(entry);
      await (wait ? Promise.race([wait.spawned, started]) : started);
    } catch {
      // Left for the question, which meets the same refusal or failed start.
    }
  }

  /** Whether any server has been started (or asked for) in this manager's life. */
  get anyStarted(): boolean {
    return this.#entries.size > 0;
  }

  /** Every known server. */
  entries(): ServerEntry[] {
    return [...this.#entries.values()];
  }

  /**
   * A running server for `file` with the file synced; NO_SERVER when no adapter handles it. The
   * lease holds the file (an overlay of it waits) until released; it waits while an overlay holds
   * the file, unless `options.lock` is that overlay's.
   */
  async acquire(
    file: string,
    signal?: AbortSignal,
    options: AcquireOptions = {},
  ): Promise<Lease> {
    if (this.#closed) throw new LspGateError("INTERNAL", "lspgate is shutting down");
    const pick = await this.pick(file);
    if (!pick) {
      throw new LspGateError(
        "NO_SERVER",
        `No language server handles ${extensionOf(file)} files. Known: ${
          this.options.adapters.filter((a) => a.kind !== "linter")
            .map((a) => `${a.id} (${Object.keys(a.languages).join(" ")})`).join(", ")
        }.`,
        { file },
      );
    }
    return await this.#lease(pick, file, signal, options.lock);
  }

  /**
   * The linter servers configured for `file` (a linter adapter applies where its marker is, e.g.
   * biome.json), each synced; ones that fail to start are reported, not thrown.
   */
  async acquireLinters(
    file: string,
    signal?: AbortSignal,
    options: AcquireOptions = {},
  ): Promise<{ leases: Lease[]; failures: { server: string; error: LspGateError }[] }> {
    const picks = await this.#picks.linters(file);
    const leases: Lease[] = [];
    const failures: { server: string; error: LspGateError }[] = [];
    await Promise.all(picks.map(async (pick) => {
      try {
        leases.push(await this.#lease(pick, file, signal, options.lock));
      } catch (error) {
        failures.push({ server: pick.adapter.id, error: toLspGateError(error) });
      }
    }));
    return { leases, failures };
  }

  async #lease(
    pick: Pick,
    file: string,
    signal?: AbortSignal,
    lock?: OverlayLock,
  ): Promise<Lease> {
    if (this.#closed) throw new LspGateError("INTERNAL", "lspgate is shutting down");
    await refuseFile(this.options, pick, file);
    // A file under another request's overlay is waited for: this query must not see its text.
    const releaseHold = lock?.paths.has(file) ? () => {} : await this.#locks.shared(file, signal);
    const entry = this.#entry(pick.adapter, pick.root);
    entry.inFlight++;
    entry.lastUsed = Date.now();
    let released = false;
    const release = () => {
      releaseHold();
      if (released) return;
      released = true;
      entry.inFlight--;
      entry.lastUsed = Date.now();
      this.options.budget?.checkSoon();
    };
    // A server already running when we came may have died unnoticed (killed between queries).
    const wasRunning = entry.state.kind === "running";
    try {
      const client = await this.#clientOf(entry);
      signal?.throwIfAborted();
      await this.#disk.refresh(entry, client, file);
      const { uri, text } = await this.syncFile(entry, client, file, pick.languageId);
      return {
        entry,
        client,
        pick,
        file,
        uri,
        text,
        leasedAt: Date.now(),
        release,
        releaseHold,
      };
    } catch (error) {
      release();
      if (signal?.aborted) throw new LspGateError("CANCELLED", "the request was cancelled");
      if (wasRunning && error instanceof LspGateError && error.code === "SERVER_EXITED") {
        throw new LspGateError(error.code, error.message, { ...error.data, diedBeforeLease: true });
      }
      throw error;
    }
  }

  /** Makes the server's view of `file` equal the disk; returns its URI and text. */
  syncFile(
    entry: ServerEntry,
    client: ServerClient,
    file: string,
    languageId?: string,
  ): Promise<{ uri: string; text: string }> {
    return this.#disk.syncFile(entry, client, file, languageId);
  }

  /**
   * Holds `paths` (real paths) for an overlay: waits until no other request uses them (TIMEOUT
   * after `timeoutMs`), while new requests for them wait until the release. `yielding`, a lease
   * of this same request on one of them, first gives up its own hold.
   */
  async lockDocuments(
    paths: readonly string[],
    options: { signal?: AbortSignal; timeoutMs?: number; yielding?: Lease } = {},
  ): Promise<OverlayLock> {
    options.yielding?.releaseHold();
    const unlock = await this.#locks.exclusive(paths, options);
    return overlayLock(paths, unlock, {
      telemetry: this.options.telemetry,
      resync: (lease) =>
        this.syncFile(lease.entry, lease.client, lease.file, lease.pick.languageId),
    });
  }

  /** Calls `listener` with everything the watcher reports from now on; returns its unsubscribe. */
  onChanges(listener: ChangeListener): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /** Tells every running server of a root about files changed on disk (from the watcher). */
  async filesChanged(changes: FileChange[]): Promise<void> {
    for (const listener of this.#changeListeners) listener(changes);
    this.#picks.forget(changes);
    for (const entry of this.#entries.values()) {
      if (entry.state.kind !== "running") continue;
      const mine = changes.filter((c) => c.path.startsWith(entry.root + "/"));
      const client = entry.state.client;
      const notOpen = mine.filter((c) => !client.documents.get(toFileUrl(c.path)));
      this.#disk.markChanged(entry, mine);
      try {
        await client.filesChanged(notOpen.map((c) => ({ uri: toFileUrl(c.path), type: c.type })));
        if (entry.adapter.openChangedFiles) await this.#disk.openChanged(entry, client, notOpen);
        else if (entry.adapter.openCreatedFiles) {
          await this.#disk.openChanged(entry, client, notOpen.filter((c) => c.type === 1), true);
        }
      } catch {
        // A server that died meanwhile is restarted on its next use.
      }
    }
  }

  /**
   * The watcher lost changes (its kernel queue overflowed): every open document is read again
   * before its next query.
   */
  changesLost(): void {
    for (const listener of this.#changeListeners) listener("lost");
    this.#picks.clear();
    for (const entry of this.#entries.values()) this.#disk.markAllChanged(entry);
  }

  /** Stops one server (by key) or all, and lets the next request start them afresh. */
  async restart(key?: string): Promise<string[]> {
    const targets = this.entries().filter((e) => key === undefined || e.key === key);
    if (key !== undefined && targets.length === 0) {
      throw new LspGateError("INVALID_INPUT", `No server ${key}. Known: ${this.#keys()}.`);
    }
    await Promise.all(targets.map(async (entry) => {
      await this.#stop(entry, "restarted on request");
      entry.crashes = [];
      entry.state = { kind: "stopped", reason: "restarted on request" };
    }));
    return targets.map((e) => e.key);
  }

  /** Shuts every server down (shutdown, exit, kill after the grace period). */
  async shutdownAll(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#idleTimer);
    await this.#leaveBudget?.();
    await Promise.all(this.entries().map((entry) => this.#stop(entry, "lspgate exited")));
  }

  #keys(): string {
    return this.entries().map((e) => e.key).join(", ") || "none";
  }

  #entry(adapter: Adapter, root: string): ServerEntry {
    const key = `${adapter.id}@${root}`;
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = {
        key,
        adapter,
        root,
        state: { kind: "stopped", reason: "not started yet" },
        restarts: 0,
        crashes: [],
        lastUsed: Date.now(),
        inFlight: 0,
        disk: new Map(),
      };
      this.#entries.set(key, entry);
    }
    return entry;
  }

  #clientOf(entry: ServerEntry): Promise<ServerClient> {
    const state = entry.state;
    if (state.kind === "running" && !state.client.exited) return Promise.resolve(state.client);
    if (entry.starting) return entry.starting;
    const refused = startRefusal(entry);
    if (refused) return Promise.reject(refused);
    if (state.kind === "crashed" || state.kind === "running") entry.restarts++;
    entry.state = { kind: "starting", since: Date.now() };
    entry.starting = this.#starter.start(entry).finally(() => entry.starting = undefined);
    return entry.starting;
  }

  #stop(entry: ServerEntry, reason: string): Promise<void> {
    return stopServer(entry, reason, (c) => this.#starter.cleanup(c), this.options.telemetry);
  }

  #stopIdle(): Promise<void> {
    const stop = (entry: ServerEntry, reason: string) => this.#stop(entry, reason);
    return stopIdle(this.#entries.values(), this.options.idleShutdownMs ?? 0, stop);
  }

  /** Waits for the budget's check a server's start made due: what `status` says is current. */
  budgetSettled(): Promise<void> {
    return this.options.budget?.settled() ?? Promise.resolve();
  }

  /** The running servers' memory, as last measured, with the budget. Measures now when asked. */
  memory(measure = false): MemoryReport {
    if (measure) this.#memory = measureServers(this.entries());
    return {
      ...this.#memory,
      budgetMiB: this.options.budget?.budgetMiB,
      over: this.options.budget?.overFor(this.#budgetMember),
    };
  }
}

function extensionOf(file: string): string {
  const name = file.split("/").pop() ?? file;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : name;
}
