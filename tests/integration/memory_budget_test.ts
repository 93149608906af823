// The memory budget on real servers: tests/fixtures/monorepo has two TypeScript packages, each
// served by its own typescript-language-server. With a budget below the two servers' total, the
// server of the package asked first is stopped once the other one is serving, `status` says why,
// and the next question to the first package starts it again and is answered right.
import assert from "node:assert/strict";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { expectOk, locationsOf, type Success } from "../helpers/session.ts";
import { TempWorkspace } from "../helpers/workspace.ts";
import { procTreeMiB } from "../helpers/proc.ts";

interface View {
  key: string;
  root: string;
  state: string;
  reason?: string;
  pid?: number;
  rssMiB?: number;
}

Deno.test("a memory budget stops the least recently used idle server; it answers again on its next question", async () => {
  const ws = await TempWorkspace.copy("monorepo");
  const session = await Session.open({
    root: ws.root,
    role: "main",
    allowMutations: false,
    adapters: ADAPTERS,
    config: { ...defaultConfig(), memoryBudgetMiB: 1 },
  });
  let id = 1;
  const ok = async (request: Record<string, unknown>): Promise<Success> =>
    expectOk(await session.handle({ id: id++, ...request }), request);
  const servers = async () => {
    const status = await ok({ action: "status" });
    return { status, views: status.details.servers as View[] };
  };
  try {
    const aDef = await ws.within("packages/a/src/format.ts", "function format(", "format");
    const aCall = await ws.within("packages/a/src/index.ts", "format(90)", "format");
    const bCall = await ws.within("packages/b/src/index.ts", 'format("bye")', "format");
    const definition = {
      action: "definition",
      file: aCall.file,
      line: aCall.line,
      column: aCall.column,
    };
    assert.deepEqual(locationsOf(await ok(definition)), [aDef]);

    // One server, over the budget alone: kept, and said so.
    let { status, views } = await servers();
    assert.deepEqual(views.map((v) => [v.root, v.state]), [["packages/a", "ready"]]);
    const a = views[0];
    assert.ok(a.rssMiB !== undefined && a.rssMiB > 10, `rssMiB of ${JSON.stringify(a)}`);
    const fromProc = procTreeMiB(a.pid!);
    assert.ok(
      Math.abs(a.rssMiB - fromProc) <= fromProc * 0.1,
      `status says ${a.rssMiB} MiB, /proc ${fromProc.toFixed(1)} MiB`,
    );
    assert.equal(status.details.memoryBudgetMiB, 1);
    assert.match(String(status.details.overBudget), /typescript@.*packages\/a alone uses \d+ MiB/);

    await ok({ action: "hover", file: bCall.file, line: bCall.line, column: bCall.column });
    // The second root's server started: the first, idle and least recently used, is stopped.
    for (let i = 0; i < 100; i++) {
      ({ status, views } = await servers());
      if (views.find((v) => v.root === "packages/a")?.state === "stopped") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const stopped = views.find((v) => v.root === "packages/a")!;
    assert.equal(stopped.state, "stopped", JSON.stringify(views));
    assert.match(stopped.reason!, /memory budget of 1 MiB/);
    assert.equal(views.find((v) => v.root === "packages/b")?.state, "ready");
    assert.match(status.content[0].text, /memory budget 1 MiB/);

    // The first root's next question starts its server again and is answered right.
    assert.deepEqual(locationsOf(await ok(definition)), [aDef]);
    ({ views } = await servers());
    assert.equal(views.find((v) => v.root === "packages/a")?.state, "ready");
  } finally {
    await session.close();
    await ws.remove();
  }
});
