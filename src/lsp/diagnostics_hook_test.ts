import assert from "node:assert/strict";
import { pushServerCommand, type TsserverRequestMode } from "../../tests/fakes/push_server.ts";
import { LspClient } from "./client.ts";

/**
 * A push fake (tests/fakes/push_server.ts) under the typescript adapter's diagnostics hook, its
 * `typescript.tsserverRequest` command failing, hanging, or not offered; one open document.
 */
async function start(tsserverRequest?: TsserverRequestMode) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-hook-" }));
  const client = await LspClient.start({
    serverName: "push-fake",
    root,
    rootUri: `file://${root}`,
    process: { command: pushServerCommand({ tsserverRequest }), cwd: root },
    installHint: "",
    requestTimeoutMs: 10_000,
    startTimeoutMs: 10_000,
    stillCleanAfterMs: 400,
    diagnosticsHook: "tsserver",
  });
  await Deno.writeTextFile(`${root}/dep`, "bad");
  const uri = `file://${root}/b.fake`;
  await client.syncDocument(uri, "fake", "uses dep\n");
  return {
    ask: (timeoutMs = 5000) => client.diagnostics(uri, timeoutMs),
    async [Symbol.asyncDispose]() {
      await client.shutdown();
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("diagnostics() waits for the push when the server does not offer the hook's command", async () => {
  await using fake = await start();
  const answer = await fake.ask();
  assert.deepEqual([answer.status, answer.items.map((d) => d.message)], ["ok", ["dep is bad"]]);
});

Deno.test("diagnostics() waits for the push when the hook's command fails", async () => {
  await using fake = await start("fail");
  const answer = await fake.ask();
  assert.deepEqual([answer.status, answer.items.map((d) => d.message)], ["ok", ["dep is bad"]]);
});

Deno.test("diagnostics() whose hook's command never answers is a timeout, never clean", async () => {
  await using fake = await start("hang");
  const answer = await fake.ask(1000);
  assert.equal(answer.status, "timeout");
  assert.deepEqual(answer.items, []);
});
