// Real servers under bubblewrap, through the whole stack: a read-only workspace, no network, and
// the same answers as unconfined. CI installs bwrap; LSPGATE_NO_BWRAP=1 skips these on purpose.
import assert from "node:assert/strict";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { sandboxFor } from "../../src/frontends/main.ts";
import { expectOk, locationsOf } from "../helpers/session.ts";
import { type FixtureName, TempWorkspace } from "../helpers/workspace.ts";

const skip = Deno.env.get("LSPGATE_NO_BWRAP") === "1";

async function sandboxed(fixture: FixtureName) {
  const ws = await TempWorkspace.copy(fixture);
  const config = defaultConfig();
  const flags = {
    root: ws.root,
    role: "subagent" as const,
    allowMutations: false,
    config,
    sandbox: "bwrap" as const,
    trust: false,
    json: false,
  };
  const { wrap, label } = await sandboxFor(flags);
  const session = await Session.open({
    root: ws.root,
    role: "subagent",
    allowMutations: false,
    adapters: ADAPTERS,
    config,
    wrap,
    sandboxLabel: label,
  });
  return { ws, session };
}

for (
  const [fixture, file, line, target, declaration, broken] of [
    ["python", "main.py", 5, "zoo/greeting.py", "def greet", "broken: int = 'x'"],
    ["deno", "src/main.ts", 7, "src/greet.ts", "function greet", "const broken: number = 'x';"],
  ] as const
) {
  Deno.test({
    name:
      `${fixture} under bubblewrap answers definition and diagnostics, and status says confined`,
    ignore: skip,
    async fn() {
      const { ws, session } = await sandboxed(fixture);
      try {
        const definition = expectOk(
          await session.handle({ id: 1, action: "definition", file, line, symbol: "greet" }),
        );
        const [location] = locationsOf(definition);
        assert.equal(location.file, target);
        assert.equal(location.line, (await ws.locate(target, declaration)).line);

        // The server sees the workspace read-only and still hears of the test's edit.
        await ws.write(file, (await ws.read(file)) + `\n${broken}\n`);
        const diagnostics = expectOk(await session.handle({ id: 2, action: "diagnostics", file }));
        const files = diagnostics.details.files as {
          status: string;
          diagnostics: { line: number; severity: string }[];
        }[];
        assert.equal(files[0].status, "ok");
        const lines = (await ws.read(file)).split("\n").length - 1;
        assert.ok(
          files[0].diagnostics.some((d) => d.severity === "error" && d.line === lines),
          JSON.stringify(files[0].diagnostics),
        );

        const status = expectOk(await session.handle({ id: 3, action: "status" }));
        assert.match(String(status.details.sandbox), /^yes \(bubblewrap/);
      } finally {
        await session.close();
        await ws.remove();
      }
    },
  });
}
