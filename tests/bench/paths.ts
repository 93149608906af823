// Where a query's time goes by the path an agent takes to lspgate: the same definition, hover and
// references asked of the same server binary on one workspace, by the direct client and by each
// of lspgate's ways in (JSON lines with a column, a `symbol` or a `query` position; sandboxed;
// through the daemon; MCP; one `lspgate call` process per query; `mod.ts` as a library in the
// benchmark's own process). Each path has its own copy of
// the workspace and its own server; rounds are interleaved and the first path rotates. Prints
// medians in ms and each path's cost over the direct client; asserts nothing.
//
// With --fresh, every round asks at a declaration in a file no path has asked about yet (as an agent
// moves through a codebase): the file is opened in the server (both sides) and, for lspgate, read,
// synced and its answer's source context read for the first time.
//
// Usage: deno run -A tests/bench/paths.ts [--only pyright/pygments] [--rounds 20] [--skip call,mcp]
//   [--fresh] [--compare ../other-checkout]
import { parseArgs } from "node:util";
import { join } from "node:path";
import { copyWorkspace, openLibrarySession } from "./measure.ts";
import { type Expected, locate, type Place } from "./sides.ts";
import { DirectSide } from "./sides.ts";
import { type GateResponse, LspgateProcess, START_RUN } from "./lspgate_process.ts";
import { SCENARIOS, sourceFiles } from "./scenarios.ts";
import { toFileUrl } from "../../src/servers/uri.ts";
import { McpProcess } from "./mcp_client.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    only: { type: "string" },
    rounds: { type: "string" },
    skip: { type: "string" },
    fresh: { type: "boolean" },
    compare: { type: "string" },
  },
});
const ROUNDS = Number(values.rounds ?? 20);
const SKIP = new Set((values.skip ?? "").split(",").filter(Boolean));
const scenario = SCENARIOS.find((s) => s.name.includes(values.only ?? "typescript/rxjs"));
if (!scenario) throw new Error(`no scenario ${values.only}`);
const folder = await scenario.folder();
if (!folder) throw new Error(`${scenario.name} is not available`);
const HOME = join(import.meta.dirname!, "..", "..");
const MOD = join(HOME, "mod.ts");

type Query = "definition" | "hover" | "references";
const QUERIES: Query[] = ["definition", "hover", "references"];

/** One way in: asks a query and checks it was answered. */
interface Path {
  label: string;
  /** Asks `query` at the scenario's spot, or with --fresh at round `round`'s fresh spot. */
  ask(query: Query, round?: number): Promise<void>;
  /** Whether this path asks `query` at all (a `query` position needs a symbol declared there). */
  asks?(query: Query, round?: number): boolean;
  close(): Promise<void>;
}

/** The request an agent would send for `query`, with the position given as `how`. */
function requestOf(query: Query, place: Place, how: "column" | "symbol" | "query", name: string) {
  const base = { action: query, file: place.file };
  if (how === "column") return { ...base, line: place.line + 1, column: place.column };
  if (how === "symbol") return { ...base, line: place.line + 1, symbol: name };
  return { ...base, query: name };
}

function check(label: string, query: Query, response: GateResponse): void {
  if (!response.ok) {
    throw new Error(`${label} ${query}: ${response.error?.code} ${response.error?.message}`);
  }
}

const places = async (root: string) => ({
  definition: await locate(root, scenario.definition),
  hover: await locate(root, scenario.hover),
  references: await locate(root, scenario.references),
});
/** With --fresh: one declaration per file, in files spread over the workspace. */
async function freshSpots(root: string): Promise<(Place & { name: string })[]> {
  const files = await sourceFiles(root, scenario!.extension);
  const declaration =
    /^(?:export (?:declare )?(?:abstract )?(?:function|class|const|interface)|def|class) (\w+)/;
  const used = new Set(Object.values(scenario!).map((v) => v?.file).filter(Boolean));
  const spots: (Place & { name: string })[] = [];
  for (const file of files) {
    if (used.has(file)) continue;
    const lines = (await Deno.readTextFile(join(root, file))).split("\n");
    const line = lines.findIndex((text) => declaration.test(text));
    if (line < 0) continue;
    const match = declaration.exec(lines[line])!;
    const utf16 = lines[line].indexOf(match[1], match[0].length - match[1].length);
    spots.push({ file, line, utf16, column: utf16 + 1, name: match[1] });
  }
  const step = Math.max(1, Math.floor(spots.length / ROUNDS));
  return spots.filter((_, i) => i % step === 0).slice(0, ROUNDS);
}
let FRESH: (Place & { name: string })[] = [];

/** Where round `round` asks `query` (and the name at it), the scenario's spot without --fresh. */
function spotOf(at: Record<Query, Place>, query: Query, round?: number) {
  if (round === undefined || !values.fresh) return { place: at[query], name: names[query] };
  const spot = FRESH[round];
  return { place: spot, name: spot.name };
}

const names: Record<Query, string> = {
  definition: scenario.definition.symbol,
  hover: scenario.hover.symbol,
  references: scenario.references.symbol,
};

/** A JSON-lines lspgate process (the `deno task start` flags), positions given as `how`. */
async function jsonLines(
  label: string,
  how: "column" | "symbol" | "query",
  sandbox: "none" | "auto",
  extra?: ConstructorParameters<typeof LspgateProcess>[3],
  home = HOME,
): Promise<Path> {
  const root = await copyWorkspace(folder!, scenario!);
  const at = await places(root);
  const gate = new LspgateProcess(root, sandbox, home, extra);
  return {
    label,
    // Without --fresh only the references spot is a declaration a `query` can name.
    asks: (query, round) =>
      how !== "query" || query === "references" || (values.fresh === true && round !== undefined),
    async ask(query, round) {
      const { place, name } = spotOf(at, query, round);
      check(label, query, await gate.request(requestOf(query, place, how, name)));
    },
    async close() {
      await gate.close();
      if (extra?.args?.includes("--daemon")) await stopDaemon(root, { env: extra.env ?? {} });
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** A private runtime folder for the daemon (never the user's own daemon). */
async function runtimeDir(): Promise<{ env: Record<string, string>; deno: string[] }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_paths_rt_" }));
  await Deno.chmod(dir, 0o700);
  return {
    env: { XDG_RUNTIME_DIR: dir, LSPGATE_NO_DAEMON: "0" },
    deno: [`--allow-write=${dir}/lspgate`, `--allow-net=unix:${dir}/lspgate/daemon.sock`],
  };
}

/** Ends the daemon's session of `root` (the daemon ends with its last). */
async function stopDaemon(root: string, runtime: { env: Record<string, string> }) {
  await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MOD, "daemon", "stop", "--root", root],
    env: runtime.env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
}

/** `lspgate call ACTION key=value …`: one Deno process per query, answered by the daemon. */
async function callPerQuery(runtime: { env: Record<string, string>; deno: string[] }) {
  const root = await copyWorkspace(folder!, scenario!);
  const at = await places(root);
  const label = "call (process per query, daemon)";
  return {
    label,
    async ask(query: Query, round?: number) {
      const { place, name } = spotOf(at, query, round);
      const request = requestOf(query, place, "symbol", name);
      const args = Object.entries(request).filter(([k]) => k !== "action").map(([k, v]) =>
        `${k}=${v}`
      );
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          ...START_RUN,
          ...runtime.deno,
          MOD,
          "call",
          query,
          ...args,
          "--root",
          root,
          "--sandbox",
          "none",
        ],
        env: runtime.env,
        stdin: "null",
      }).output();
      if (!output.success) {
        throw new Error(`${label} ${query}: ${new TextDecoder().decode(output.stderr)}`);
      }
    },
    async close() {
      await stopDaemon(root, runtime);
      await Deno.remove(root, { recursive: true });
    },
  } satisfies Path;
}

async function mcpPath(): Promise<Path> {
  const root = await copyWorkspace(folder!, scenario!);
  const at = await places(root);
  const mcp = await McpProcess.start(MOD, root);
  const label = "mcp (tools/call lsp)";
  return {
    label,
    async ask(query, round) {
      const { place, name } = spotOf(at, query, round);
      const result = await mcp.call(requestOf(query, place, "symbol", name));
      if (result.isError) throw new Error(`${label} ${query}: ${JSON.stringify(result)}`);
    },
    async close() {
      await mcp.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

/**
 * lspgate as a library (`mod.ts`), in this process as a Deno agent would embed it: the same session
 * and server, no pipe to lspgate and back (sandbox none, as the other paths).
 */
async function libraryPath(): Promise<Path> {
  const root = await copyWorkspace(folder!, scenario!);
  const at = await places(root);
  const session = await openLibrarySession(root);
  const label = "library (mod.ts, in process)";
  let id = 0;
  return {
    label,
    async ask(query, round) {
      const { place, name } = spotOf(at, query, round);
      const response = await session.handle({
        id: ++id,
        ...requestOf(query, place, "column", name),
      });
      check(label, query, response as GateResponse);
    },
    async close() {
      await session.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

async function directPath(): Promise<Path> {
  const root = await copyWorkspace(folder!, scenario!);
  const target = await locate(root, { ...scenario!.definition.expect, symbol: "" });
  const expected: Expected = {
    definition: { file: scenario!.definition.expect.file, line: target.line },
    references: 1,
  };
  const side = await DirectSide.start(root, scenario!, expected);
  return {
    label: "direct client",
    async ask(query, round) {
      if (round === undefined || !values.fresh) {
        await side.prepare(query, 0);
        await side.run(query);
        return;
      }
      const { place } = spotOf({} as Record<Query, Place>, query, round);
      const uri = toFileUrl(join(root, place.file));
      if (!side.client.isOpen(uri)) {
        side.client.open(
          uri,
          scenario!.languageId,
          await Deno.readTextFile(join(root, place.file)),
        );
      }
      const method = query === "definition" ? "textDocument/definition" : `textDocument/${query}`;
      await side.client.request(method, {
        textDocument: { uri },
        position: { line: place.line, character: place.utf16 },
        ...(query === "references" ? { context: { includeDeclaration: true } } : {}),
      });
    },
    async close() {
      await side.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

if (values.fresh) {
  FRESH = await freshSpots(folder);
  if (FRESH.length < ROUNDS) throw new Error(`only ${FRESH.length} fresh spots`);
}
const runtime = await runtimeDir();
const makers: [string, () => Promise<Path>][] = [
  ["direct", directPath],
  ["jsonl", () => jsonLines("json lines, column, --sandbox none", "column", "none")],
  ...(values.compare
    ? [[
      "compare",
      () => jsonLines(`json lines, ${values.compare}`, "column", "none", undefined, values.compare),
    ] as [string, () => Promise<Path>]]
    : []),
  ["symbol", () => jsonLines("json lines, symbol", "symbol", "none")],
  ["query", () => jsonLines("json lines, query", "query", "none")],
  ["sandbox", () => jsonLines("json lines, column, --sandbox auto", "column", "auto")],
  // No write grant at all (the benchmark before 2026-11-25): the watcher's flush is best effort.
  [
    "nogrant",
    () =>
      jsonLines("json lines, no write grant (best-effort flush)", "column", "none", {
        writeGrant: false,
      }),
  ],
  [
    "daemon",
    () =>
      jsonLines("json lines through the daemon", "column", "none", {
        deno: runtime.deno,
        env: runtime.env,
        args: ["--daemon"],
      }),
  ],
  ["mcp", mcpPath],
  ["library", libraryPath],
  ["call", () => callPerQuery(runtime)],
];
const paths: Path[] = [];
for (const [key, make] of makers) if (!SKIP.has(key)) paths.push(await make());

const median = (xs: number[]) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const times = new Map<string, number[]>();
try {
  // Warm-up: every path answers every query (the server's project loaded, the files open).
  for (const path of paths) {
    for (const query of QUERIES) {
      if (path.asks && !path.asks(query)) continue;
      for (let attempt = 0;; attempt++) {
        try {
          await path.ask(query);
          break;
        } catch (error) {
          if (attempt > 60) throw error;
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
      for (let i = 0; i < 3; i++) await path.ask(query);
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    const k = round % paths.length;
    for (const path of [...paths.slice(k), ...paths.slice(0, k)]) {
      for (const query of QUERIES) {
        if (path.asks && !path.asks(query, round)) continue;
        const t0 = performance.now();
        await path.ask(query, round);
        const ms = performance.now() - t0;
        const key = `${path.label}\t${query}`;
        times.set(key, [...times.get(key) ?? [], ms]);
      }
    }
  }
} finally {
  for (const path of paths) await path.close().catch(() => {});
  await Deno.remove(runtime.env.XDG_RUNTIME_DIR, { recursive: true }).catch(() => {});
}

console.log(`${scenario.name}: median ms of ${ROUNDS} interleaved rounds (+ ms over direct)\n`);
console.log(`| path | ${QUERIES.join(" | ")} |`);
console.log(`| --- | ${QUERIES.map(() => "---").join(" | ")} |`);
const direct = paths.find((p) => p.label === "direct client");
for (const path of paths) {
  const cells = QUERIES.map((query) => {
    const m = median(times.get(`${path.label}\t${query}`) ?? []);
    if (Number.isNaN(m)) return "—";
    if (!direct || path === direct) return m.toFixed(1);
    const d = median(times.get(`${direct.label}\t${query}`) ?? []);
    return `${m.toFixed(1)} (+${(m - d).toFixed(1)})`;
  });
  console.log(`| ${path.label} | ${cells.join(" | ")} |`);
}
// The daemon and the call processes exit with the runtime folder gone; exit for stray timers.
Deno.exit(0);
