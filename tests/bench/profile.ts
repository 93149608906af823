// Where lspgate's time per request goes: a Session in this process (servers unconfined, as with
// `--sandbox none`), the steps of a request wrapped with timers, each action asked N times on a
// benchmark scenario's workspace. Times are inclusive (a step's time holds the steps it calls)
// and per request: mean ms, and how often the step ran per request.
//
// With --fresh, each definition, hover and references is asked at a declaration in a file not
// asked about before (its first query: read, opened in the server, synced).
//
// Usage: deno run -A tests/bench/profile.ts [--only typescript/rxjs] [--n 50] [--fresh]
import { parseArgs } from "node:util";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { ACTIONS as ACTION_TABLE } from "../../src/actions/table.ts";
import { WorkspaceRoot } from "../../src/permissions/workspace.ts";
import { ServerManager } from "../../src/servers/manager.ts";
import { WorkerClient } from "../../src/lsp/worker_client.ts";
import { LspClient } from "../../src/lsp/client.ts";
import { copyWorkspace } from "./measure.ts";
import { SCENARIOS } from "./scenarios.ts";
import { locate } from "./sides.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { only: { type: "string" }, n: { type: "string" }, fresh: { type: "boolean" } },
});
const n = Number(values.n ?? 50);
const scenario = SCENARIOS.find((s) => s.name.includes(values.only ?? "typescript/fixture"));
if (!scenario) throw new Error(`no scenario ${values.only}`);
const folder = await scenario.folder();
if (!folder) throw new Error(`${scenario.name} is not available`);

/** Accumulated time and calls per step, for the request being measured. */
const steps = new Map<string, { ms: number; calls: number }>();
let measuring = false;

function wrap(target: object, name: string, label: string) {
  const proto = target as Record<string, unknown>;
  const original = proto[name] as (...args: unknown[]) => unknown;
  proto[name] = function (this: unknown, ...args: unknown[]) {
    if (!measuring) return original.apply(this, args);
    const t0 = performance.now();
    const record = () => {
      const step = steps.get(label) ?? { ms: 0, calls: 0 };
      step.ms += performance.now() - t0;
      step.calls++;
      steps.set(label, step);
    };
    const result = original.apply(this, args);
    if (result instanceof Promise) return result.finally(record);
    record();
    return result;
  };
}

wrap(Session.prototype, "handle", "session.handle (all)");
for (const action of ACTION_TABLE.values()) wrap(action, "run", "action.run");
wrap(WorkspaceRoot.prototype, "resolve", "workspace.resolve");
wrap(WorkspaceRoot.prototype, "readText", "workspace.readText");
wrap(WorkspaceRoot.prototype, "glob", "workspace.glob");
wrap(LspClient.prototype, "notify", "client.notify");
wrap(ServerManager.prototype, "acquire", "manager.acquire");
wrap(ServerManager.prototype, "acquireLinters", "manager.acquireLinters");
wrap(ServerManager.prototype, "pick", "manager.pick");
wrap(ServerManager.prototype, "syncFile", "manager.syncFile");
for (const method of ["request", "syncDocument", "waitReady", "diagnostics", "filesChanged"]) {
  wrap(WorkerClient.prototype, method, `worker.${method}`);
  wrap(LspClient.prototype, method, `client.${method}`);
}
wrap(Deno, "stat", "Deno.stat");
wrap(Deno, "realPath", "Deno.realPath");
wrap(Deno, "readFile", "Deno.readFile");
wrap(Deno, "readTextFile", "Deno.readTextFile");

(globalThis as Record<string, unknown>).__prof = (label: string, ms: number) => {
  if (!measuring) return;
  const step = steps.get(label) ?? { ms: 0, calls: 0 };
  step.ms += ms;
  step.calls++;
  steps.set(label, step);
};
const root = await copyWorkspace(folder, scenario);
const session = await Session.open({
  root,
  role: "subagent",
  allowMutations: false,
  adapters: ADAPTERS,
  config: defaultConfig(),
});
const at = async (spot: typeof scenario.hover) => {
  const place = await locate(root, spot);
  return { file: place.file, line: place.line + 1, column: place.column };
};
const requests: Record<string, Record<string, unknown>> = {
  definition: { action: "definition", ...await at(scenario.definition) },
  references: { action: "references", ...await at(scenario.references) },
  hover: { action: "hover", ...await at(scenario.hover) },
  symbols: { action: "symbols", file: scenario.outline },
  workspace_symbols: { action: "symbols", file: "*", query: scenario.workspaceQuery },
  diagnostics: { action: "diagnostics", file: scenario.edit.file },
};
/** With --fresh: a declaration in each of `n` files, none of them the scenario's own. */
async function freshRequests(): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  const declaration =
    /^(?:export (?:declare )?(?:abstract )?(?:function|class|const|interface)|def|class) (\w+)/;
  for await (const entry of walk(root)) {
    if (
      !entry.endsWith(scenario!.extension) || Object.values(requests).some((r) => r.file === entry)
    ) continue;
    const lines = (await Deno.readTextFile(`${root}/${entry}`)).split("\n");
    const line = lines.findIndex((text) => declaration.test(text));
    if (line < 0) continue;
    const match = declaration.exec(lines[line])!;
    const column = lines[line].indexOf(match[1], match[0].length - match[1].length) + 1;
    found.push({ file: entry, line: line + 1, column });
    if (found.length === n) break;
  }
  return found;
}

async function* walk(dir: string, prefix = ""): AsyncGenerator<string> {
  const entries = await Array.fromAsync(Deno.readDir(dir));
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.isDirectory && !entry.name.startsWith(".")) {
      yield* walk(`${dir}/${entry.name}`, `${prefix}${entry.name}/`);
    } else if (entry.isFile) yield `${prefix}${entry.name}`;
  }
}

try {
  if (values.fresh) {
    const spots = await freshRequests();
    for (const request of Object.values(requests)) await session.handle({ id: 0, ...request });
    console.log(`${scenario.name}, first queries in ${spots.length} files, mean ms (calls)\n`);
    for (const action of ["definition", "hover", "references"]) {
      steps.clear();
      measuring = true;
      for (const [i, spot] of spots.entries()) {
        // definition first: the file's first query; hover and references follow in it.
        const response = await session.handle({ id: i, action, ...spot });
        if (!response.ok) throw new Error(`${action}: ${JSON.stringify(response.error)}`);
      }
      measuring = false;
      console.log(action);
      for (const [label, step] of [...steps].sort((a, b) => b[1].ms - a[1].ms)) {
        console.log(
          `  ${label.padEnd(26)} ${(step.ms / spots.length).toFixed(2).padStart(8)} ms` +
            `  (${(step.calls / spots.length).toFixed(1)})`,
        );
      }
    }
  }
  for (const request of values.fresh ? [] : Object.values(requests)) {
    for (let i = 0; i < 3; i++) await session.handle({ id: 0, ...request });
  }
  if (!values.fresh) {
    console.log(`${scenario.name}, ${n} requests per action, mean ms per request (calls)\n`);
  }
  for (const [name, request] of values.fresh ? [] : Object.entries(requests)) {
    steps.clear();
    measuring = true;
    for (let i = 0; i < n; i++) {
      const response = await session.handle({ id: i, ...request });
      if (!response.ok) throw new Error(`${name}: ${JSON.stringify(response.error)}`);
    }
    measuring = false;
    console.log(name);
    for (const [label, step] of [...steps].sort((a, b) => b[1].ms - a[1].ms)) {
      console.log(
        `  ${label.padEnd(26)} ${(step.ms / n).toFixed(2).padStart(8)} ms` +
          `  (${(step.calls / n).toFixed(1)})`,
      );
    }
  }
} finally {
  await session.close();
  await Deno.remove(root, { recursive: true });
}
