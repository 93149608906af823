// The two C paths issue 17 measured slow on a real C library (jansson): a workspace symbol search
// and a rename preview, through lspgate (a Session in this process, steps timed as in profile.ts)
// beside clangd asked directly, once both have built their index. Prints medians in ms.
//
// Usage: deno run -A tests/bench/c_paths.ts --root DIR [--query json_loads] [--file src/load.c]
//   [--line "json_t *json_loads("] [--symbol json_loads] [--n 20]
// DIR is copied first; e.g. jansson's sources (`git archive` of akheron/jansson, or its release
// tarball). Timings are for reading, never asserted.
import { parseArgs } from "node:util";
import { join } from "node:path";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { toFileUrl } from "../../src/servers/uri.ts";
import { CLIENT_CAPABILITIES } from "../../src/lsp/capabilities.ts";
import { DirectClient } from "./direct_client.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    root: { type: "string" },
    query: { type: "string", default: "json_loads" },
    file: { type: "string", default: "src/load.c" },
    line: { type: "string", default: "json_t *json_loads(" },
    symbol: { type: "string", default: "json_loads" },
    n: { type: "string", default: "20" },
  },
});
if (!values.root) throw new Error("--root DIR: a C project (e.g. jansson's sources)");
const n = Number(values.n);

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_cpaths_" }));
await new Deno.Command("cp", { args: ["-r", `${values.root}/.`, root] }).output();
const text = await Deno.readTextFile(join(root, values.file!));
const lines = text.split("\n");
const line = lines.findIndex((l) => l.includes(values.line!));
if (line < 0) throw new Error(`no line ${values.line} in ${values.file}`);
const column = lines[line].indexOf(values.symbol!);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function time(label: string, fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  const m = median(ms);
  console.log(`  ${label.padEnd(34)} median ${m.toFixed(2)} ms, max ${Math.max(...ms).toFixed(2)}`);
  return m;
}

// clangd directly, started as lspgate's adapter starts it.
const adapter = ADAPTERS.find((a) => a.id === "clangd")!;
const command = await adapter.resolve({ root, workspace: root, trusted: false });
const direct = await DirectClient.start({
  command: command.command,
  cwd: root,
  env: {},
  rootUri: toFileUrl(root),
  capabilities: { ...CLIENT_CAPABILITIES, ...adapter.extraCapabilities },
  initializationOptions: command.initializationOptions,
  settings: undefined,
});
const uri = toFileUrl(join(root, values.file!));
direct.open(uri, "c", text);
while (direct.busy) await new Promise((r) => setTimeout(r, 100));
await new Promise((r) => setTimeout(r, 2000));
while (direct.busy) await new Promise((r) => setTimeout(r, 100));

const session = await Session.open({
  root,
  role: "main",
  allowMutations: false,
  adapters: ADAPTERS,
  config: defaultConfig(),
});
const symbols = { action: "symbols", file: "*", query: values.query };
const rename = {
  action: "rename",
  file: values.file,
  line: line + 1,
  column: column + 1,
  new_name: `${values.symbol}_renamed`,
};
try {
  // The first of each: it starts the workspace's other servers (a search asks every one).
  for (const request of [symbols, rename, symbols]) {
    const t0 = performance.now();
    const answer = await session.handle({ id: 0, ...request });
    if (!answer.ok) throw new Error(JSON.stringify(answer.error));
    console.log(`first ${request.action}: ${(performance.now() - t0).toFixed(1)} ms`);
  }
  console.log(`${values.root}: ${n} requests each, after the index is built`);
  console.log(`workspace symbols \`${values.query}\``);
  await time("clangd directly", () => direct.request("workspace/symbol", { query: values.query }));
  await time("through lspgate", () => session.handle({ id: 1, ...symbols }));
  console.log(`rename preview of \`${values.symbol}\``);
  await time("clangd directly", () =>
    direct.request("textDocument/rename", {
      textDocument: { uri },
      position: { line, character: column },
      newName: `${values.symbol}_renamed`,
    }));
  await time("through lspgate", () => session.handle({ id: 2, ...rename }));
} finally {
  await session.close();
  await direct.close();
  await Deno.remove(root, { recursive: true });
}
