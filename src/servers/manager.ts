import { toFileUrl } from "./uri.ts";
import { LspGateError, toLspGateError } from "../errors.ts";
import { LspClient } from "../lsp/client.ts";
import type { ExitInfo, ServerClient } from "../lsp/server_client.ts";
import { WorkerClient } from "../lsp/worker_client.ts";
import type { Adapter } from "./adapter.ts";
import { languageIdOf, type Pick, pickAdapter, pickLinters, PickMemo } from "./pick.ts";
import { DocumentLocks } from "./document_locks.ts";
import type { ChangeTracking, FileChange } from "./watcher.ts";
import { isWatched } from "./watched.ts";
import { clientOptions } from "./server_options.ts";
import { checkProgram } from "./check_program.ts";
import { overlayLock } from "./overlay_lock.ts";
export { mergeSettings } from "./server_options.ts";
import { budgetServers, readProcesses } from "./memory.ts";

import type {
  AcquireOptions,
  ChangeListener,
  CommandWrapper,
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

const FAILED_START_MEMORY_MS = 30_000;
const MAX_CACHED_PICKS = 10_000;
const MAX_OPENED_ON_CHANGE = 16;
const CRASH_WINDOW_MS = 180_000;
const MAX_CRASHES = 5;
const IDLE_CHECK_MIN_MS = 50;
const IDLE_CHECK_MAX_MS = 30_000;

/** Starts servers lazily per (adapter, root), reuses them, restarts crashed ones, stops them all. */
export class ServerManager {
  readonly #entries = new Map<string, ServerEntry>();
  /**
   * Adapter choices per file, kept while the watcher follows changes: what decides them (root
   * markers, their contents) only changes with a file created, deleted, or a marker edited.
   */
  readonly #picks = new Map<string, Promise<Pick | undefined>>();
  readonly #linterPicks = new Map<string, Promise<Pick[]>>();
  /** Markers and installed servers, shared by the picks of every file (see PickMemo). */
  readonly #pickMemo = new PickMemo();
  readonly #markers: ReadonlySet<string>;
  readonly #locks = new DocumentLocks();
  #idleTimer?: ReturnType<typeof setInterval>;
  #closed = false;
  /** Each running client's sandbox cleanup, run once when it exits or is stopped. */
  readonly #cleanups = new Map<ServerClient, () => Promise<void>>();
  readonly #changeListeners = new Set<ChangeListener>();
  #leaveBudget?: () => Promise<void>;
  #memory: MemoryReport = { rssMiB: new Map() };

  constructor(readonly options: ManagerOptions) {
    this.#markers = new Set(
      options.adapters.flatMap((a) => [...a.rootMarkers, ...(a.workspaceMarkers ?? [])]),
    );
    if (options.idleShutdownMs) {
      this.#idleTimer = setInterval(
        () => this.#stopIdle().catch(() => {}),
        Math.min(IDLE_CHECK_MAX_MS, Math.max(IDLE_CHECK_MIN_MS, options.idleShutdownMs / 4)),
      );
    }
    this.#leaveBudget = options.budget?.join({
      servers: (processes) => budgetServers(this.entries(), processes),
      stop: async (key, reason) => {
        const entry = this.#entries.get(key);
        if (entry && !this.#closed) await this.#stop(entry, reason);
      },
    });
  }

  /** The adapter and root for a file, or undefined when no adapter handles its type. */
  pick(file: string): Promise<Pick | undefined> {
    return this.#cached(this.#picks, file, () => {
      const adapters = this.options.adapters.filter((a) =>
        !this.options.serverConfig?.[a.id]?.disabled
      );
      const memo = this.#tracking() === "off" ? undefined : this.#pickMemo;
      return pickAdapter(file, this.options.workspace, adapters, memo);
    });
  }

  /** `choose()` for `file`, remembered while the watcher follows changes (see #picks). */
  #cached<T>(cache: Map<string, Promise<T>>, file: string, choose: () => Promise<T>): Promise<T> {
    if (this.#tracking() === "off") return choose();
    let choice = cache.get(file);
    if (!choice) {
      // A bound on memory for a session that queries very many files.
      if (cache.size >= MAX_CACHED_PICKS) cache.clear();
      choice = choose();
      cache.set(file, choice);
      choice.catch(() => cache.delete(file));
    }
    return choice;
  }

  /**
   * Whether a file whose recorded state the watcher has not marked is known unchanged without a
   * look at the disk: only when the watcher is exact and covers the file (inside the root,
   * outside the heavy folders). With `statMatches` (its size and mtime are as recorded), a
   * best-effort watcher is enough too: it marks a same-size rewrite within the same mtime tick
   * as soon as it reads the event, which it has almost always done by the time a query comes.
   */
  #unchanged(path: string, statMatches = false): boolean {
    const tracking = this.#tracking();
    const enough = tracking === "exact" || (statMatches && tracking === "best effort");
    return enough && isWatched(this.options.workspace, path);
  }

  #tracking(): ChangeTracking {
    return this.options.changeTracking?.() ?? "off";
  }

  /** Forgets adapter choices a change may have changed: a file created or deleted, a marker edited. */
  #forgetPicks(changes: readonly FileChange[]) {
    const decisive = changes.some((c) =>
      c.type !== 2 || this.#markers.has(c.path.slice(c.path.lastIndexOf("/") + 1))
    );
    if (!decisive) return;
    this.#picks.clear();
    this.#linterPicks.clear();
    this.#pickMemo.clear();
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
    const picks = await this.#cached(this.#linterPicks, file, () => {
      const adapters = this.options.adapters.filter((a) =>
        !this.options.serverConfig?.[a.id]?.disabled
      );
      const memo = this.#tracking() === "off" ? undefined : this.#pickMemo;
      return pickLinters(file, this.options.workspace, adapters, memo);
    });
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
      this.options.budget?.check();
    };
    // A server already running when we came may have died unnoticed (killed between queries).
    const wasRunning = entry.state.kind === "running";
    try {
      const client = await this.#clientOf(entry);
      signal?.throwIfAborted();
      await this.#refreshOpenDocuments(entry, client, file);
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
  async syncFile(
    entry: ServerEntry,
    client: ServerClient,
    file: string,
    languageId?: string,
  ): Promise<{ uri: string; text: string }> {
    const uri = toFileUrl(file);
    // stat before reading: a write in between then shows as a change on the next query. A stat
    // (never an open: a FIFO cannot block it) in the thread, not a hop to Deno's blocking pool:
    // a few microseconds where the hop costs tens, on every query.
    const stat = Deno.statSync(file);
    const mtime = stat.mtime?.getTime() ?? 0;
    const current = entry.state.kind === "running" && entry.state.client === client;
    const known = entry.disk.get(uri);
    if (
      current && known && known.mtime === mtime && known.size === stat.size &&
      client.documents.get(uri)?.version === known.version && this.#unchanged(known.path, true)
    ) {
      return { uri, text: known.text };
    }
    const text = await this.options.readFile(file);
    languageId ??= languageIdOf(entry.adapter, file) ?? "plaintext";
    const doc = await client.syncDocument(uri, languageId, text);
    // A request still holding a server that has since been replaced must not record its state.
    if (entry.state.kind === "running" && entry.state.client === client) {
      entry.disk.set(uri, { path: file, mtime, size: stat.size, text, version: doc.version });
    }
    return { uri, text };
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
    this.#forgetPicks(changes);
    for (const entry of this.#entries.values()) {
      if (entry.state.kind !== "running") continue;
      const mine = changes.filter((c) => c.path.startsWith(entry.root + "/"));
      const client = entry.state.client;
      const notOpen = mine.filter((c) => !client.documents.get(toFileUrl(c.path)));
      // An open one is re-read before the next query, even if its size and mtime look the same.
      for (const change of mine) {
        const known = entry.disk.get(toFileUrl(change.path));
        if (known) known.mtime = Number.NaN;
      }
      try {
        await client.filesChanged(notOpen.map((c) => ({ uri: toFileUrl(c.path), type: c.type })));
        if (entry.adapter.openChangedFiles) await this.#openChanged(entry, client, notOpen);
      } catch {
        // A server that died meanwhile is restarted on its next use.
      }
    }
  }

  /**
   * For a server that learns of changes on disk only from its own file watcher (see
   * Adapter.openChangedFiles): the files of its languages that changed are opened in it, so the
   * change reaches it before the next query, in order. A batch larger than a few files (a
   * codemod, a checkout) is left to the server's watcher.
   */
  async #openChanged(entry: ServerEntry, client: ServerClient, changes: FileChange[]) {
    const files = changes.filter((c) =>
      c.type !== 3 && languageIdOf(entry.adapter, c.path) !== undefined &&
      !this.#locks.isExclusive(c.path)
    );
    if (files.length === 0 || files.length > MAX_OPENED_ON_CHANGE) return;
    for (const change of files) {
      // Only this server's own files: one of a nested project belongs to that project's server.
      const pick = await this.pick(change.path).catch(() => undefined);
      if (pick?.adapter.id !== entry.adapter.id || pick.root !== entry.root) continue;
      try {
        await this.syncFile(entry, client, change.path);
      } catch {
        // Gone again, or refused by the boundary: the server's own watcher tells it.
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
    this.#linterPicks.clear();
    this.#pickMemo.clear();
    for (const entry of this.#entries.values()) {
      for (const known of entry.disk.values()) known.mtime = Number.NaN;
    }
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
    if (state.kind === "disabled") {
      return Promise.reject(
        new LspGateError(
          "SERVER_EXITED",
          `${entry.key} is not restarted: ${state.reason}. Use the restart action to try again.`,
          { server: entry.key },
        ),
      );
    }
    if (state.kind === "failed" && Date.now() - state.at < FAILED_START_MEMORY_MS) {
      return Promise.reject(state.error);
    }
    if (state.kind === "crashed" || state.kind === "running") entry.restarts++;
    entry.state = { kind: "starting", since: Date.now() };
    entry.starting = this.#start(entry).finally(() => entry.starting = undefined);
    return entry.starting;
  }

  async #start(entry: ServerEntry): Promise<ServerClient> {
    const config = this.options.serverConfig?.[entry.adapter.id];
    const telemetry = this.options.telemetry;
    const startedAt = performance.now();
    telemetry?.emit("server.start", { server: entry.adapter.id, root: entry.root });
    let wrapped: Awaited<ReturnType<CommandWrapper>> | undefined;
    try {
      const trusted = (this.options.trustedRoots ?? []).some((t) =>
        entry.root === t || entry.root.startsWith(t + "/")
      );
      const command = await entry.adapter.resolve({
        root: entry.root,
        workspace: this.options.workspace,
        configuredCommand: config?.command,
        trusted,
      });
      await checkProgram(entry.adapter, command, this.options.workspace);
      wrapped = this.options.wrap
        ? await this.options.wrap(command, entry)
        : { command: command.command };
      const reopen = [...entry.disk.values()].map((known) => known.path);
      entry.disk.clear();
      const options = await clientOptions(entry, command, wrapped, {
        ...this.options,
        config,
      });
      // The client runs on this thread, the sandbox its wall (see permissions.md); `clientWorkers`
      // puts it in a Worker allowed to spawn that one binary and nothing else.
      const client = this.options.isolate
        ? await WorkerClient.start(options, { run: [wrapped.command[0]] })
        : await LspClient.start(options);
      entry.state = { kind: "running", client, since: Date.now(), command };
      telemetry?.emit("server.ready", {
        server: entry.adapter.id,
        pid: client.pid,
        duration_ms: Math.round(performance.now() - startedAt),
      });
      const cleanup = wrapped.cleanup;
      if (cleanup) {
        let done: Promise<void> | undefined;
        this.#cleanups.set(client, () => done ??= cleanup());
      }
      client.onExit((info) => {
        this.#cleanup(client);
        this.#onExit(entry, client, info);
      });
      if (this.#closed) await client.shutdown();
      else await this.#reopen(entry, client, reopen);
      this.options.budget?.check(true);
      return client;
    } catch (error) {
      await wrapped?.cleanup?.();
      const converted = toLspGateError(error);
      entry.state = { kind: "failed", at: Date.now(), error: converted };
      telemetry?.emit("server.exit", {
        server: entry.adapter.id,
        reason: "failed to start",
        error: converted.code,
        duration_ms: Math.round(performance.now() - startedAt),
      });
      throw converted;
    }
  }

  /** Opens again, in a server restarted after a crash, the documents its predecessor had open. */
  async #reopen(entry: ServerEntry, client: ServerClient, paths: string[]) {
    for (const path of paths) {
      try {
        await this.syncFile(entry, client, path);
      } catch {
        // Deleted or unreadable since: the server is not told about it, as on a first start.
      }
    }
  }

  #onExit(entry: ServerEntry, client: ServerClient, info: ExitInfo) {
    if (entry.state.kind !== "running" || entry.state.client !== client) return;
    const now = Date.now();
    entry.crashes = [...entry.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
    const reason = info.reason ??
      (info.signal ? `killed by ${info.signal}` : `exited with code ${info.code}`);
    this.options.telemetry?.emit("server.exit", {
      server: entry.adapter.id,
      reason,
      uptime_ms: now - entry.state.since,
    });
    entry.state = entry.crashes.length >= MAX_CRASHES
      ? {
        kind: "disabled",
        reason: `it crashed ${entry.crashes.length} times in ${CRASH_WINDOW_MS / 60000} minutes ` +
          `(last: ${reason})`,
      }
      : { kind: "crashed", at: now, reason, stderr: info.stderr };
  }

  async #cleanup(client: ServerClient): Promise<void> {
    const cleanup = this.#cleanups.get(client);
    if (!cleanup) return;
    await cleanup();
    this.#cleanups.delete(client);
  }

  async #stop(entry: ServerEntry, reason: string) {
    const starting = entry.starting;
    if (starting) await starting.catch(() => {});
    const state = entry.state;
    entry.disk.clear();
    if (state.kind !== "running") return;
    entry.state = { kind: "stopped", reason };
    await state.client.shutdown();
    // The process is gone: what its sandbox left (a scratch folder) goes before lspgate may exit.
    await this.#cleanup(state.client);
    this.options.telemetry?.emit("server.exit", {
      server: entry.adapter.id,
      reason,
      uptime_ms: Date.now() - state.since,
    });
  }

  /** The running servers' memory, as last measured, with the budget. Measures now when asked. */
  memory(measure = false): MemoryReport {
    if (measure) {
      const processes = readProcesses();
      const servers = budgetServers(this.entries(), processes);
      const rssMiB = new Map<string, number>();
      for (const { key, rssMiB: mib } of servers) {
        if (mib !== undefined) rssMiB.set(key, Math.round(mib));
      }
      this.#memory = {
        rssMiB,
        totalMiB: processes
          ? Math.round(servers.reduce((sum, s) => sum + (s.rssMiB ?? 0), 0))
          : undefined,
      };
    }
    return {
      ...this.#memory,
      budgetMiB: this.options.budget?.budgetMiB,
      over: this.options.budget?.over,
    };
  }

  async #stopIdle() {
    const limit = this.options.idleShutdownMs ?? 0;
    for (const entry of this.#entries.values()) {
      if (entry.state.kind !== "running" || entry.inFlight > 0 || entry.starting) continue;
      if (Date.now() - entry.lastUsed < limit) continue;
      const idle = limit < 10_000 ? `${limit} ms` : `${Math.round(limit / 1000)} s`;
      await this.#stop(entry, `unused for ${idle}`);
    }
  }

  /** Re-syncs open documents another tool changed on disk, closes deleted ones. */
  async #refreshOpenDocuments(entry: ServerEntry, client: ServerClient, except: string) {
    await Promise.all([...entry.disk.entries()].map(async ([uri, known]) => {
      // A file under an overlay is synced again, from the disk, when the overlay is released.
      if (known.path === except || this.#locks.isExclusive(known.path)) return;
      if (!client.documents.get(uri)) {
        // Closed by the client (too many open) or never opened in this server: nothing to sync.
        entry.disk.delete(uri);
        return;
      }
      // Unmarked by an exact watcher: not changed since it was sent.
      if (!Number.isNaN(known.mtime) && this.#unchanged(known.path)) return;
      let stat: Deno.FileInfo;
      try {
        // In the thread (see syncFile): one per open document, on every query.
        stat = Deno.statSync(known.path);
      } catch {
        entry.disk.delete(uri);
        await client.closeDocument(uri);
        await client.filesChanged([{ uri, type: 3 }]);
        return;
      }
      if ((stat.mtime?.getTime() ?? 0) === known.mtime && stat.size === known.size) return;
      try {
        await this.syncFile(entry, client, known.path);
      } catch {
        entry.disk.delete(uri);
        await client.closeDocument(uri);
      }
    }));
  }
}

function extensionOf(file: string): string {
  const name = file.split("/").pop() ?? file;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : name;
}
