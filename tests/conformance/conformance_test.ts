// The conformance suite: every real language server, on a small fixture in its language, answers
// the same checks (see checks.ts). A row is one file in rows/ (found here by listing the folder):
// adding a language is an adapter, a fixture folder and a row file.
//
// Each row starts its server once, in a fresh session, as lspgate runs by default (sandboxed by
// bubblewrap where it works here; LSPGATE_NO_BWRAP=1 runs the servers unconfined), so the first
// check is a true cold start. A server that cannot be found or installed fails its row.
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { type GlobalFlags, sandboxFor } from "../../src/frontends/main.ts";
import { expectError, expectOk, type Harness } from "../helpers/session.ts";
import { type FixtureName, TempWorkspace } from "../helpers/workspace.ts";
import { CHECK_FNS } from "./checks.ts";
import { CHECKS, type Row } from "./row.ts";
import { registersTest } from "../tools.ts";

const ROWS = new URL("./rows/", import.meta.url);

async function loadRows(): Promise<Row[]> {
  const names = [];
  for await (const entry of Deno.readDir(ROWS)) {
    if (entry.isFile && entry.name.endsWith(".ts")) names.push(entry.name);
  }
  const rows: Row[] = [];
  for (const name of names.sort()) {
    const module = await import(new URL(name, ROWS).href);
    const exported = module.default as Row | Row[] | undefined;
    if (!exported) throw new Error(`tests/conformance/rows/${name} has no default export (a Row)`);
    rows.push(...(Array.isArray(exported) ? exported : [exported]));
  }
  return rows;
}

/** A fresh session over a copy of the row's fixture, confined as lspgate confines by default. */
async function openRow(row: Row): Promise<Harness> {
  const ws = await TempWorkspace.copy(row.fixture as FixtureName);
  let session: Session;
  try {
    await row.setup?.(ws);
    const config = { ...defaultConfig(), servers: row.servers ?? {} };
    const flags: GlobalFlags = {
      root: ws.root,
      role: "main",
      allowMutations: false,
      config,
      sandbox: Deno.env.get("LSPGATE_NO_BWRAP") === "1" ? "none" : "auto",
      trust: false,
      json: false,
    };
    const sandbox = await sandboxFor(flags);
    session = await Session.open({
      root: ws.root,
      role: "main",
      allowMutations: false,
      adapters: ADAPTERS,
      config,
      wrap: sandbox.wrap,
      sandboxLabel: sandbox.label,
      sandboxed: sandbox.sandboxed,
    });
  } catch (error) {
    await ws.remove();
    throw error;
  }
  let id = 1;
  const ask = (request: Record<string, unknown>) => session.handle({ id: id++, ...request });
  return {
    ws,
    session,
    ask,
    ok: async (request) => expectOk(await ask(request), request),
    fails: async (request, code) => expectError(await ask(request), code, request),
    async close() {
      try {
        await session.close();
      } finally {
        await ws.remove();
      }
    },
  };
}

for (const row of await loadRows()) {
  // rust-analyzer's row runs in the test runner's second pass while its first build is underway.
  if (!registersTest(row.server === "rust-analyzer")) continue;
  Deno.test(`conformance: ${row.name}`, async (t) => {
    await row.ensure?.();
    const h = await openRow(row);
    try {
      for (const check of CHECKS) {
        const { title, run } = CHECK_FNS[check];
        if (row[check] !== undefined) {
          await t.step(title, () => run(h, row));
          continue;
        }
        const reason = row.skip?.[check];
        await t.step({
          name: `${title} — not for ${row.server}: ${reason ?? "no reason given"}`,
          ignore: reason !== undefined,
          fn() {
            throw new Error(`the row neither gives "${check}" nor says in skip why not`);
          },
        });
      }
    } finally {
      await h.close();
    }
  });
}
