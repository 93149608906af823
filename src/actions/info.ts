import * as z from "../zod.ts";
import type { MemoryReport, ServerEntry } from "../servers/manager.ts";
import type { ChangeTracking } from "../servers/watcher.ts";
import { treeRssKiB } from "../servers/memory.ts";
import { describeAdapters, listAdapters } from "./adapter_list.ts";
import { withDocument } from "./document.ts";
import { ACTION_METHODS } from "./methods.ts";
import { offers, refusedBy, serverLabel } from "./refused_methods.ts";
import { type ActionContext, type ActionDef, defineAction } from "./types.ts";
import { describeEncoding } from "../lsp/positions.ts";

/** A server as `servers` and `status` show it. */
export interface ServerView {
  key: string;
  server: string;
  root: string;
  state: string;
  reason?: string;
  pid?: number;
  encoding?: string;
  /** Its lines end at U+2028 and U+2029 too (tsserver's); lspgate converts its positions. */
  ecmascriptLines?: true;
  uptimeMs?: number;
  restarts: number;
  openDocuments?: number;
  indexing?: string[];
  command?: string[];
  note?: string;
  /** Resident memory of the server's whole process tree in MiB, where /proc can be read. */
  rssMiB?: number;
  /** The data limit each of its processes runs under (servers.<id>.memoryCapMiB). */
  memoryCapMiB?: number;
  stderr?: string[];
  /** The server said it could not load its project: its answers there are partial (why). */
  projectProblem?: string;
}

function serverView(
  context: ActionContext,
  entry: ServerEntry,
  verbose: boolean,
  memory: MemoryReport,
): ServerView {
  const state = entry.state;
  const view: ServerView = {
    key: entry.key,
    server: entry.adapter.id,
    root: context.workspace.relative(entry.root) || ".",
    state: state.kind,
    restarts: entry.restarts,
  };
  if (state.kind === "running") {
    const info = state.client.info();
    view.state = info.indexing.length ? "indexing" : "ready";
    view.pid = info.pid;
    Object.assign(view, describeEncoding(info.encoding));
    view.uptimeMs = Date.now() - info.startedAt;
    view.openDocuments = info.openDocuments;
    view.indexing = info.indexing;
    const rss = memory.rssMiB.get(entry.key);
    if (rss !== undefined) view.rssMiB = rss;
    const cap = state.client.options.memoryCapMiB;
    if (cap !== undefined) view.memoryCapMiB = cap;
    if (state.command.note) view.note = state.command.note;
    const broken = Object.entries(info.brokenImports ?? {});
    if (info.projectProblem !== undefined) view.projectProblem = info.projectProblem;
    else if (broken.length) {
      const [uri, message] = broken[0];
      view.projectProblem = `${broken.length} file(s) with imports it could not resolve, e.g. ` +
        `${context.workspace.relative(decodeURIComponent(new URL(uri).pathname))}: ${message}`;
    }
    if (verbose) {
      view.command = state.command.command;
      view.stderr = info.stderr;
    }
  } else if (state.kind === "crashed") {
    view.reason = state.reason;
    if (verbose) view.stderr = state.stderr.slice(-5);
  } else if (state.kind === "failed") {
    view.reason = `${state.error.code}: ${state.error.message}`;
  } else if (state.kind === "disabled" || state.kind === "stopped") {
    view.reason = state.reason;
  }
  return view;
}

function describe(view: ServerView): string {
  const facts = [
    view.state,
    view.pid !== undefined ? `pid ${view.pid}` : "",
    view.encoding
      ? `positions ${view.encoding}${view.ecmascriptLines ? " on ECMAScript's lines" : ""}`
      : "",
    view.uptimeMs !== undefined ? `up ${Math.round(view.uptimeMs / 1000)} s` : "",
    view.restarts ? `${view.restarts} restarts` : "",
    view.openDocuments !== undefined ? `${view.openDocuments} open documents` : "",
    view.rssMiB !== undefined ? `${view.rssMiB} MiB` : "",
    view.memoryCapMiB !== undefined ? `capped at ${view.memoryCapMiB} MiB a process` : "",
    view.indexing?.length ? `working on: ${view.indexing.join(", ")}` : "",
    view.note ?? "",
    view.projectProblem !== undefined
      ? `could not load the project (answers partial): ${view.projectProblem}`
      : "",
    view.reason ?? "",
  ].filter(Boolean);
  return `${view.server} for ${view.root}: ${facts.join(", ")}`;
}

function describeMemory(memory: MemoryReport): string {
  const total = memory.totalMiB === undefined
    ? "servers' memory unknown (neither /proc nor ps could be read)"
    : `servers hold ${memory.totalMiB} MiB`;
  const budget = memory.budgetMiB === undefined
    ? "no memory budget"
    : `memory budget ${memory.budgetMiB} MiB (idle servers stop, least recently used first, ` +
      "when the servers hold more)";
  return `${total}; ${budget}${memory.over ? `; over the budget: ${memory.over}` : ""}`;
}

const empty = z.strictObject({ timeout: z.optional(z.number()) });

/** servers: the language servers started so far and their state. */
export const serversAction: ActionDef = defineAction({
  name: "servers",
  summary: "The language servers started so far, and every adapter: installed or not, tested or " +
    "not, how to install it.",
  schema: empty,
  access: "read",
  async run(_input, context) {
    await context.manager.budgetSettled();
    const memory = context.manager.memory(true);
    const views = context.manager.entries().map((e) => serverView(context, e, false, memory));
    const adapters = await listAdapters(context);
    const text = (views.length
      ? `Servers:\n${views.map(describe).join("\n")}`
      : "No language server started yet; one starts on the first request for a file it handles.") +
      `\n${describeAdapters(adapters)}`;
    return { text, details: { servers: views, adapters } };
  },
});

const TRACKING_WORDS: Record<ChangeTracking, string> = {
  exact: "exact (each query waits for the watcher to have read every earlier change)",
  "best effort": "best effort (no private folder lspgate may write for the watcher's barrier: " +
    "a change made within milliseconds of a query to a file not open may be missed; open " +
    "files are always checked)",
  off: "not watched (open files are still checked before each query)",
};

/** Where the workspace watcher runs (status's `watcher`). */
interface WatcherView {
  runsOn: "main thread" | "worker" | "process";
  /** Its own process's, where it runs in one. */
  pid?: number;
  rssMiB?: number;
  /** It watches the daemon's other roots too: its size is not told. */
  shared?: boolean;
}

/** Where the watcher runs; its own process's pid and resident memory where it has one. */
function watcherView(
  session: ActionContext["session"],
  memory: MemoryReport,
): WatcherView | undefined {
  const where = session.watcher?.();
  if (!where?.runsOn) return undefined;
  // A process every root of the daemon shares: its size would tell of the other workspaces (a
  // helper saw a client's figure rise 41 → 63 MiB as another root of 40,000 folders opened).
  if (where.pid === undefined || where.shared) {
    return {
      runsOn: where.runsOn,
      ...(where.pid !== undefined ? { pid: where.pid } : {}),
      ...(where.shared ? { shared: true } : {}),
    };
  }
  // The table the servers were just measured from: one read of /proc for the whole status.
  const kib = memory.processes && treeRssKiB(where.pid, memory.processes);
  const rss = kib === undefined ? undefined : Math.round(kib / 1024);
  return {
    runsOn: where.runsOn,
    pid: where.pid,
    ...(rss !== undefined ? { rssMiB: rss } : {}),
  };
}

function describeWatcher(view: WatcherView): string {
  if (view.runsOn !== "process") {
    return `the watcher runs on ${view.runsOn === "worker" ? "a Worker" : "the main thread"}`;
  }
  const rss = view.shared
    ? ", shared with the daemon's other workspaces"
    : view.rssMiB !== undefined
    ? `, ${view.rssMiB} MiB resident`
    : "";
  return `the watcher runs in lspgate's watcher process (pid ${view.pid}${rss})`;
}

/** status: this process (role, root, mutations, sandbox) and each server in detail. */
export const statusAction: ActionDef = defineAction({
  name: "status",
  summary: "lspgate's role, root, mutation and sandbox settings, and each server in detail.",
  schema: empty,
  access: "read",
  async run(_input, context) {
    await context.manager.budgetSettled();
    const s = context.session;
    const memory = context.manager.memory(true);
    const views = context.manager.entries().map((e) => serverView(context, e, true, memory));
    const watcher = watcherView(s, memory);
    const head = [
      `lspgate ${s.version}, root ${context.workspace.path}`,
      `role ${s.role}, mutations ${s.allowMutations ? "allowed" : "refused"}, ` +
      `servers sandboxed: ${s.sandbox}`,
      s.trustedRoots.length
        ? `trusted roots (their own programs may run, sandboxed): ${s.trustedRoots.join(", ")}`
        : "no trusted root: a project's own programs (node_modules/.bin, its TypeScript, " +
          "its Python environment) are never run",
      `changes other tools make on disk: ${TRACKING_WORDS[s.changeTracking?.() ?? "off"]}`,
      ...(watcher ? [describeWatcher(watcher)] : []),
      s.clientWorkers
        ? "server clients: each in a Worker that may spawn only its server (clientWorkers)"
        : "server clients: on lspgate's main thread, the servers' sandbox their wall",
      describeMemory(memory),
      ...(s.daemonPid !== undefined ? [`served by the daemon (pid ${s.daemonPid})`] : []),
      `up ${Math.round((Date.now() - s.startedAt) / 1000)} s`,
      ...(s.notices?.() ?? []).map((n) => `note: ${n}`),
    ];
    const text = [...head, ...views.map(describe)].join("\n");
    return {
      text,
      details: {
        version: s.version,
        root: context.workspace.path,
        role: s.role,
        allowMutations: s.allowMutations,
        sandbox: s.sandbox,
        sandboxed: s.sandboxed,
        sandboxBackend: s.sandboxBackend,
        trustedRoots: s.trustedRoots,
        clientWorkers: s.clientWorkers ?? false,
        changeTracking: s.changeTracking?.() ?? "off",
        ...(watcher ? { watcher } : {}),
        uptimeMs: Date.now() - s.startedAt,
        ...(s.daemonPid !== undefined ? { daemonPid: s.daemonPid } : {}),
        memoryBudgetMiB: memory.budgetMiB ?? null,
        serversRssMiB: memory.totalMiB ?? null,
        ...(memory.over ? { overBudget: memory.over } : {}),
        notices: [...(s.notices?.() ?? [])],
        servers: views,
      },
    };
  },
});

/** capabilities: which actions the server for a file supports. */
export const capabilitiesAction: ActionDef = defineAction({
  name: "capabilities",
  summary: "Which actions the language server for a file supports, and its raw capabilities.",
  schema: z.strictObject({
    file: z.string().check(z.minLength(1)),
    timeout: z.optional(z.number()),
  }),
  access: "read",
  run: (input, context) =>
    withDocument(context, input.file, (doc) => {
      const actions: Record<string, boolean> = {};
      const refused: string[] = [];
      for (const [action, method] of Object.entries(ACTION_METHODS)) {
        actions[action] = offers(doc.client, method);
        if (refusedBy(doc.client, method)) refused.push(action);
      }
      const yes = Object.keys(actions).filter((a) => actions[a]);
      const described = describeEncoding(doc.encoding);
      const no = Object.keys(actions).filter((a) => !actions[a]);
      const said = refused.length
        ? ` (${refused.join(", ")}: advertised, but ${
          serverLabel(doc.client, doc.server)
        } answered MethodNotFound)`
        : "";
      return Promise.resolve({
        text: `${doc.server} (for ${doc.rel}) supports: ${yes.join(", ")}.` +
          (no.length ? `\nNot supported: ${no.join(", ")}${said}.` : "") +
          `\nPosition encoding: ${described.encoding}` +
          (described.ecmascriptLines
            ? " on ECMAScript's lines (U+2028 and U+2029 end one too; lspgate converts)."
            : "."),
        details: {
          server: doc.server,
          ...described,
          actions,
          capabilities: doc.client.capabilities,
        },
      });
    }),
});
