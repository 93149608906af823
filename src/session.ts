import type { Adapter } from "./servers/adapter.ts";
import { ACTION_NAMES, loadAction } from "./actions/lazy_table.ts";
import { answerIn, errorIn, readDialect, type Reading } from "./actions/dialects.ts";
import type { ActionContext, ActionNote, SessionFacts } from "./actions/types.ts";
import { LspGateError, toLspGateError } from "./errors.ts";
import { decide, type Role } from "./permissions/policy.ts";
import { WorkspaceRoot } from "./permissions/workspace.ts";
import { type CommandWrapper, ServerManager } from "./servers/manager.ts";
import { configureServers } from "./servers/custom_adapter.ts";
import { watchWorkspace, type WorkspaceWatcher } from "./servers/watcher.ts";
import { BudgetPool } from "./servers/budget.ts";
import type { LspGateConfig } from "./config.ts";
import type { Telemetry } from "./telemetry.ts";
import { VERSION } from "./version.ts";
import { budgetOf, realFolders, recoverApplies } from "./session_open.ts";
import { cancelText, checkId } from "./request_id.ts";
import {
  describeAction,
  describeIssues,
  isCancel,
  requestId,
  untilCancelled,
} from "./session_request.ts";
export { budgetOf } from "./session_open.ts";
import { ASKED_WHILE_FLUSHING, runAfterFlush } from "./flushed_run.ts";

/** The id a caller gave a request: echoed in its response. */
export type RequestId = string | number | null;

/** One response line of the protocol. */
export type Response =
  | {
    id: RequestId;
    ok: true;
    content: { type: "text"; text: string }[];
    details: Record<string, unknown>;
  }
  | {
    id: RequestId;
    ok: false;
    error: { code: string; message: string; data?: Record<string, unknown> };
  };

/** What a session needs: the root, who is calling, and the servers it may start. */
export interface SessionOptions {
  root: string;
  role: Role;
  allowMutations: boolean;
  adapters: readonly Adapter[];
  config: LspGateConfig;
  wrap?: CommandWrapper;
  sandboxLabel?: string;
  /** Whether `wrap` confines the servers. */
  sandboxed?: boolean;
  /** Which backend `wrap` confines them with ("none" when unconfined). */
  sandboxBackend?: "bwrap" | "landlock" | "none";
  /** Where server lifecycle events go (`--telemetry`); request events are the front end's. */
  telemetry?: Telemetry;
  /**
   * Roots the user marked trusted (the config's `trustedRoots`, `--trust`): a project's own
   * programs may run there, and only when `sandboxed`.
   */
  trustedRoots?: string[];
  /**
   * The memory budget the servers count against, shared by a daemon's roots; default: one of the
   * session's own, from the config.
   */
  budget?: BudgetPool;
  /** The pid of the daemon serving this session, when one does (`status` shows it). */
  daemonPid?: number;
  /** What was set aside or repaired while opening (status lists them). */
  notices?: string[];
  /**
   * The workspace watcher runs on this thread, not in a Worker: only for a session that lasts as
   * long as its process (lspgate's own front ends), since a stopped one is abandoned, not closed.
   */
  watchInThread?: boolean;
}

/**
 * Validates, authorises and runs requests against one workspace. Each request is caught on its
 * own: nothing one request does can stop the others.
 */
export class Session {
  readonly #inFlight = new Map<string, AbortController>();
  /** Aborted when the caller's input ends (endInput). */
  readonly #ending = new AbortController();
  readonly facts: SessionFacts;
  #watcher: WorkspaceWatcher;
  readonly #isView: boolean;
  /** Notices the next answer carries (an interrupted apply finished or undone at start). */
  readonly #unsaid: string[] = [];

  private constructor(
    readonly workspace: WorkspaceRoot,
    readonly manager: ServerManager,
    readonly options: SessionOptions,
    trustedRoots: string[],
    watcher: WorkspaceWatcher,
    view?: { startedAt: number },
  ) {
    this.#isView = view !== undefined;
    this.facts = {
      role: options.role,
      allowMutations: options.allowMutations,
      sandbox: options.sandboxLabel ?? (options.sandboxed ? "yes" : "no"),
      sandboxed: options.sandboxed ?? false,
      sandboxBackend: options.sandboxBackend ?? (options.sandboxed ? undefined : "none"),
      trustedRoots,
      clientWorkers: options.config.clientWorkers,
      startedAt: view?.startedAt ?? Date.now(),
      version: VERSION,
      changeTracking: () => this.#watcher.tracking,
      watcher: () => ({
        runsOn: this.#watcher.runsOn,
        pid: this.#watcher.processId,
        shared: this.#watcher.processShared,
      }),
      ...(options.daemonPid !== undefined ? { daemonPid: options.daemonPid } : {}),
      notices: () => options.notices ?? [],
    };
    this.#watcher = watcher;
  }

  /**
   * A view of this session for another caller (a daemon connection): the same workspace, servers
   * and watcher, its own role, mutation setting and requests. Its role is its own: a sub-agent view
   * of a main session stays a sub-agent. close() on a view cancels only the view's requests.
   */
  view(caller: { role: Role; allowMutations: boolean }): Session {
    return new Session(
      this.workspace,
      this.manager,
      {
        ...this.options,
        role: caller.role,
        allowMutations: caller.role === "main" && caller.allowMutations,
      },
      [...this.facts.trustedRoots],
      this.#watcher,
      { startedAt: this.facts.startedAt },
    );
  }

  /** Opens the workspace root and prepares (but does not start) its servers. */
  static async open(options: SessionOptions): Promise<Session> {
    const workspace = await WorkspaceRoot.open(options.root, {
      readOnlyRoots: options.config.readOnlyRoots,
    });
    // The user's config adds and changes servers; a workspace's .lspgate.jsonc only settings.
    const { notices, ...configured } = await configureServers(
      options.adapters,
      options.config,
      workspace,
    );
    const recovered = await recoverApplies(workspace, options);
    options = {
      ...options,
      ...configured,
      notices: [...options.notices ?? [], ...notices, ...recovered],
    };
    // Trust without a sandbox would let a repository's programs run unconfined: it is ignored.
    const trustedRoots = options.sandboxed
      ? await realFolders(options.trustedRoots ?? [], workspace.path)
      : [];
    const manager = new ServerManager({
      workspace: workspace.path,
      adapters: options.adapters,
      requestTimeoutMs: options.config.timeoutMs,
      startTimeoutMs: options.config.startTimeoutMs,
      serverConfig: options.config.servers,
      wrap: options.wrap,
      idleShutdownMs: options.config.idleShutdownMs,
      isolate: options.config.clientWorkers,
      budget: options.budget ?? new BudgetPool(() => budgetOf(options.config.memoryBudgetMiB)),
      readFile: async (path) => workspace.readText(await workspace.resolve(path)),
      telemetry: options.telemetry,
      trustedRoots,
      changeTracking: () => watcher.tracking,
    });
    // Files other tools change reach the servers as didChangeWatchedFiles.
    const watcher = watchWorkspace(workspace.path, (changes) => manager.filesChanged(changes), {
      onLost: () => manager.changesLost(),
      inThread: options.watchInThread,
    });
    const session = new Session(workspace, manager, options, trustedRoots, watcher);
    session.#unsaid.push(...recovered);
    return session;
  }

  /** Answers one request object; never throws. */
  async handle(raw: unknown): Promise<Response> {
    const id = requestId(raw);
    const key = JSON.stringify(id);
    const controller = new AbortController();
    // Registered before the first await: a cancel on the very next line finds this request.
    if (id !== null && !isCancel(raw)) this.#inFlight.set(key, controller);
    let reading: Reading | undefined;
    try {
      if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
        throw new LspGateError("INVALID_INPUT", "each request must be a JSON object");
      }
      checkId((raw as { id?: unknown }).id);
      const read = readDialect(raw as Record<string, unknown>);
      reading = read.reading;
      const request = read.request;
      const { id: _id, action: name, ...fields } = request;
      if (typeof name !== "string") {
        throw new LspGateError(
          "INVALID_INPUT",
          `the request has no action; one of: ${[...ACTION_NAMES, "cancel"].join(", ")}`,
        );
      }
      if (name === "cancel") return this.#cancel(id, fields);
      // Only a read-only query, which no role is refused: a refused request starts nothing.
      const query = ASKED_WHILE_FLUSHING.has(name) && typeof fields.file === "string";
      if (query && !this.manager.anyStarted) await this.#prestart(fields.file as string);
      const action = await loadAction(name);
      if (!action) {
        throw new LspGateError(
          "UNKNOWN_ACTION",
          `unknown action \`${name}\`; one of: ${[...ACTION_NAMES, "cancel"].join(", ")}`,
          { action: name },
        );
      }
      const parsed = action.schema.safeParse(fields);
      if (!parsed.success) {
        throw new LspGateError("INVALID_INPUT", `${name}: ${describeIssues(parsed.error)}`, {
          issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
        });
      }
      const input = parsed.data as Record<string, unknown>;
      const access = typeof action.access === "function" ? action.access(input) : action.access;
      const decision = decide({
        action: describeAction(name, input),
        access,
        role: this.options.role,
        allowMutations: this.options.allowMutations,
      });
      if (!decision.allow) {
        throw new LspGateError("ACTION_NOT_ALLOWED", decision.reason, { action: name, access });
      }
      const notes: ActionNote[] = this.#unsaid.splice(0).map((text) => ({
        text: `Note: ${text}`,
        details: { recovered: text },
      }));
      const run = action.run.bind(action);
      const result = answerIn(
        await runAfterFlush({
          watcher: this.#watcher,
          overlap: ASKED_WHILE_FLUSHING.has(name),
          flush: () => untilCancelled(this.#watcher.flush(), controller.signal, key),
          controller,
          notes,
          run: (attempt, attemptNotes) => this.#run(key, attempt, attemptNotes, run, input),
        }),
        reading,
      );
      return {
        id,
        ok: true,
        content: [{ type: "text", text: result.text + notes.map((n) => `\n\n${n.text}`).join("") }],
        // Every answer says whether the servers behind it were confined.
        details: {
          ...result.details,
          ...Object.assign({}, ...notes.map((n) => n.details)),
          sandboxed: this.facts.sandboxed,
          ...(this.facts.sandboxBackend ? { sandboxBackend: this.facts.sandboxBackend } : {}),
        },
      };
    } catch (error) {
      const e = toLspGateError(error);
      if (e.code === "INTERNAL") console.error(`lspgate: internal error on request ${id}:`, error);
      return {
        id,
        ok: false,
        error: errorIn(e, reading),
      };
    } finally {
      if (this.#inFlight.get(key) === controller) this.#inFlight.delete(key);
    }
  }

  /**
   * A session's first read-only query about a file: its server is spawned before the action's
   * code loads and the input is checked (manager.prestart); a bad input still starts it.
   */
  async #prestart(file: string): Promise<void> {
    let path: string;
    try {
      path = await this.workspace.resolve(file);
    } catch {
      return; // Said by the question itself.
    }
    await this.manager.prestart(path);
  }

  #run(...[key, controller, notes, run, input]: RunArgs) {
    const timeoutMs = typeof input.timeout === "number"
      ? input.timeout
      : this.options.config.timeoutMs;
    const context: ActionContext = {
      workspace: this.workspace,
      manager: this.manager,
      signal: controller.signal,
      ending: this.#ending.signal,
      timeoutMs,
      readyTimeoutMs: Math.min(timeoutMs, this.options.config.readyTimeoutMs),
      session: this.facts,
      notes,
    };
    // A cancel answers at once even if the server is slow to notice.
    return untilCancelled(run(input as never, context), controller.signal, key);
  }

  #cancel(id: RequestId, fields: Record<string, unknown>): Response {
    const target = fields.target;
    if (typeof target !== "string" && typeof target !== "number") {
      throw new LspGateError(
        "INVALID_INPUT",
        "cancel needs target: the id of the request to cancel",
      );
    }
    const controller = this.#inFlight.get(JSON.stringify(target));
    controller?.abort();
    return {
      id,
      ok: true,
      content: [{
        type: "text",
        text: cancelText(target, controller !== undefined),
      }],
      details: { target, cancelled: controller !== undefined },
    };
  }

  /** The caller will send nothing more (EOF): a syntax parse in flight gets at most ~1 s more. */
  endInput(): void {
    this.#ending.abort();
  }

  /** Waits for nothing: shuts every language server down. */
  async close(): Promise<void> {
    for (const controller of this.#inFlight.values()) controller.abort();
    // A view shares its servers with the session it came from: those stay up.
    if (this.#isView) return;
    this.#watcher.stop();
    await this.manager.shutdownAll();
  }
}

/** What #run takes: the request's key and controller, its notes, the action, its input. */
type RunArgs = [
  key: string,
  controller: AbortController,
  notes: ActionNote[],
  run: (
    input: never,
    context: ActionContext,
  ) => Promise<{ text: string; details: Record<string, unknown> }>,
  input: Record<string, unknown>,
];
