// What every start pays for, and the first answers. `deno bundle` makes one file and hoists every
// static `node:` import in it to the file's start, a module that only MCP loads included (and any
// `node:` module loads Deno's Node compatibility layer: paths and file URLs are lspgate's own); and
// zod's full API (454 KB bundled, ~+50 ms at each start, +13 MiB) is kept whole wherever it is
// imported, where `zod/mini` keeps only the functions used; the first `localeCompare` loads ICU's
// collation data (9–17 ms), which a clangd start and a first references answer paid. Timings are
// the benchmark's (`tests/bench/cold.ts --compare dist/lspgate.js`); this keeps what gives them.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const entry = fileURLToPath(new URL("../../src/worker_entry.ts", import.meta.url));
const home = new URL("../../", import.meta.url).href;

interface Dependency {
  specifier: string;
  code?: { specifier: string };
  isDynamic?: boolean;
}

/** Each of lspgate's own modules in the bundle's graph, with the modules it imports as code. */
async function ownImports(): Promise<Map<string, Dependency[]>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string; dependencies?: Dependency[] }[];
  };
  const own = new Map<string, Dependency[]>();
  for (const module of info.modules) {
    if (!module.specifier.startsWith(home)) continue;
    own.set(module.specifier.slice(home.length), module.dependencies ?? []);
  }
  return own;
}

Deno.test("the bundle's start loads no node: module: the few lspgate uses are imported where used", async () => {
  const own = await ownImports();
  assert.ok(own.has("src/frontends/mcp.ts"), "the graph reaches the MCP front end");
  const hoisted: string[] = [];
  for (const [module, dependencies] of own) {
    for (const dependency of dependencies) {
      const code = dependency.code?.specifier;
      if (!code?.startsWith("node:") || dependency.isDynamic) continue;
      hoisted.push(`${module} imports ${code}`);
    }
  }
  assert.deepEqual(hoisted, []);
});

Deno.test("zod's full API is loaded only by the MCP front end; every other schema is zod/mini's", async () => {
  const own = await ownImports();
  const full: string[] = [];
  for (const [module, dependencies] of own) {
    for (const dependency of dependencies) {
      const code = dependency.code?.specifier ?? "";
      if (/^npm:\/?zod@[^/]+$/.test(code)) full.push(module);
    }
  }
  assert.deepEqual(full, ["src/frontends/mcp.ts"]);
  const mini = [...own].filter(([, dependencies]) =>
    dependencies.some((d) => /^npm:\/?zod@[^/]+\/mini$/.test(d.code?.specifier ?? ""))
  ).map(([module]) => module);
  assert.deepEqual(mini, ["src/zod.ts"]);
});

Deno.test("no module of lspgate's orders text with localeCompare, whose first call loads ICU's collation data", async () => {
  const own = await ownImports();
  const calling: string[] = [];
  for (const module of own.keys()) {
    if (!/\.(ts|js)$/.test(module)) continue;
    const text = await Deno.readTextFile(fileURLToPath(new URL(module, home)));
    if (/\.localeCompare\(/.test(text)) calling.push(module);
  }
  assert.ok(own.has("adapters/clangd.ts"), "the graph reaches the adapters");
  assert.deepEqual(calling, []);
});
