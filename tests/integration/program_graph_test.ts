// What the program loads before it knows where it serves. `deno run … mod.ts` (JSON lines, `hook`,
// `call`, `--daemon`) first parses its command line and, for a client of the warm daemon, only
// connects: the sessions, adapters, config schema (zod, jsonc-parser) and the LSP protocol load by
// dynamic import when this process serves itself. Measured: a `--daemon` client 73 → 54 MiB
// resident, `--version` 65 → 45 MiB (tests/bench/memory.ts reports it). This keeps it so.
import assert from "node:assert/strict";
import { moduleGraph } from "../helpers/module_graph.ts";
import { REPO_ROOT } from "../helpers/program.ts";

/** The modules `entry` loads before its first line runs: its static imports, transitively. */
async function staticClosure(entry: string): Promise<string[]> {
  const graph = await moduleGraph(entry);
  const modules = new Map(graph.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const stack = [...graph.roots];
  while (stack.length) {
    const specifier = stack.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      if (!dep.isDynamic && dep.code?.specifier) stack.push(dep.code.specifier);
    }
  }
  return [...seen].map((s) => s.replace(`file://${REPO_ROOT}`, ""));
}

const SERVING = [
  /^npm:/, // zod, jsonc-parser, vscode-languageserver-protocol, the MCP SDK
  /^adapters\//,
  /^src\/session\.ts$/,
  /^src\/config\.ts$/,
  /^src\/config_schema\.ts$/,
  /^src\/actions\//,
  /^src\/lsp\/client\.ts$/,
  /^src\/servers\/manager\.ts$/,
  /^src\/syntax\//,
];

Deno.test("the program's entry loads no session, adapter, schema or npm package before it serves", async () => {
  const loaded = await staticClosure("mod.ts");
  assert.ok(loaded.includes("src/frontends/main.ts"), loaded.join(", "));
  assert.ok(loaded.includes("src/daemon/remote_session.ts"), loaded.join(", "));
  const serving = loaded.filter((m) => SERVING.some((pattern) => pattern.test(m)));
  assert.deepEqual(serving, [], "loaded by mod.ts's static imports");
});

Deno.test("the relay of `mcp --daemon` loads what the entry does and no more: no MCP SDK", async () => {
  // The daemon serves the tool on the relay's connection (src/daemon/mcp_connection.ts): the SDK,
  // with zod and ajv (~28 MiB), loads there once, not in every agent session's relay.
  const loaded = await staticClosure("src/frontends/mcp_forward.ts");
  assert.ok(loaded.includes("src/daemon/start.ts"), loaded.join(", "));
  const serving = loaded.filter((m) =>
    SERVING.some((pattern) => pattern.test(m)) || m === "src/frontends/mcp.ts"
  );
  assert.deepEqual(serving, [], "loaded by mcp_forward.ts's static imports");
});

Deno.test("serving in-process loads jsonc-parser and the config's schema only where a text needs them", async () => {
  // jsonc-parser is CommonJS: loading it costs a cold start ~15 ms and ~5 MiB. A JSONC text
  // (tsconfig with comments, a config file) loads it when it is read (src/jsonc.ts).
  for (const entry of ["src/session.ts", "adapters/mod.ts"]) {
    const loaded = await staticClosure(entry);
    assert.ok(loaded.includes(entry), `${entry}: ${loaded.join(", ")}`);
    const heavy = loaded.filter((m) =>
      /^npm:jsonc-parser/.test(m) || /^src\/config(_schema|_problems|_workspace)?\.ts$/.test(m)
    );
    assert.deepEqual(heavy, [], `loaded by ${entry}'s static imports`);
  }
});

Deno.test("a session loads each action's module when a request first names it", async () => {
  const loaded = await staticClosure("src/session.ts");
  const actions = loaded.filter((m) =>
    /^src\/actions\/(navigation|hover|symbols|diagnostics|hierarchy|edits|info|admin|table)\.ts$/
      .test(m)
  );
  assert.deepEqual(actions, [], "loaded by src/session.ts's static imports");
});

Deno.test("mod.ts as a library still exports the session, adapters, config and actions", async () => {
  const lib = await import("../../mod.ts");
  assert.equal(typeof lib.Session.open, "function");
  assert.ok(lib.ADAPTERS.some((a) => a.id === "typescript"), "the shipped adapters");
  assert.equal(lib.defaultConfig().timeoutMs, 30_000);
  assert.equal(typeof lib.loadConfig, "function");
  assert.ok(lib.ACTIONS.has("definition"), "the action table");
  assert.equal(typeof lib.main, "function");
});
