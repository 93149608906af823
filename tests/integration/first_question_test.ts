// A session's first read-only query about a file has its server spawned before its action's code
// loads and its input is checked (ServerManager.prestart): real clangd on tests/fixtures/c. What
// the question answers is as it was; a file outside the root starts nothing, and a refused write
// action starts nothing either (tests/security/attack_policy_test.ts).
import assert from "node:assert/strict";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { expectOk, locationsOf } from "../helpers/session.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

async function open(ws: TempWorkspace, role: "main" | "subagent" = "main"): Promise<Session> {
  return await Session.open({
    root: ws.root,
    role,
    allowMutations: false,
    adapters: ADAPTERS,
    config: defaultConfig(),
  });
}

async function servers(session: Session): Promise<{ server: string; state: string }[]> {
  const status = expectOk(await session.handle({ id: "s", action: "status" }), {});
  return status.details.servers as { server: string; state: string }[];
}

Deno.test("a first question with a bad position is refused as before, its server already starting; the next is answered", async () => {
  await using ws = await TempWorkspace.copy("c");
  const session = await open(ws);
  try {
    const bad = await session.handle({
      id: 1,
      action: "definition",
      file: "src/main.c",
      line: 0,
      column: 1,
    });
    assert.equal(bad.ok, false);
    assert.equal(!bad.ok && bad.error.code, "INVALID_INPUT", JSON.stringify(bad));
    // Spawned with the question, before its input was checked.
    assert.deepEqual((await servers(session)).map((s) => s.server), ["clangd"]);
    const at = await ws.locate("src/main.c", "add_counts(1");
    const request = { action: "definition", file: "src/main.c", ...at };
    const answer = expectOk(await session.handle({ id: 2, ...request }), request);
    const target = await ws.locate("src/counts.c", "add_counts(int");
    assert.deepEqual(
      locationsOf(answer).map(({ file, line, column }) => ({ file, line, column })),
      [{ file: "src/counts.c", line: target.line, column: target.column }],
    );
  } finally {
    await session.close();
  }
});

Deno.test("a first question about a file outside the root, or a folder, starts no server", async () => {
  await using ws = await TempWorkspace.copy("c");
  await using outside = await TempWorkspace.copy("c");
  const session = await open(ws, "subagent");
  try {
    const cases = [
      [`${outside.root}/src/main.c`, "OUTSIDE_WORKSPACE"],
      ["../c/src/main.c", "OUTSIDE_WORKSPACE"],
      ["src", "INVALID_INPUT"],
    ];
    for (const [file, code] of cases) {
      const answer = await session.handle({ id: 1, action: "hover", file, line: 1, column: 1 });
      assert.equal(answer.ok, false, JSON.stringify(answer));
      assert.equal(!answer.ok && answer.error.code, code, JSON.stringify(answer));
      assert.deepEqual(await servers(session), [], file);
    }
  } finally {
    await session.close();
  }
});
