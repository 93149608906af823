import assert from "node:assert/strict";
import { loadingServerCommand, type LoadingStyle } from "../../tests/fakes/loading_server.ts";
import { type ClientOptions, LspClient } from "./client.ts";

/** A loading fake (see tests/fakes/loading_server.ts) with one document opened. */
async function start(style: LoadingStyle, options: Partial<ClientOptions>) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-ready-" }));
  const client = await LspClient.start({
    serverName: "loading-fake",
    root,
    rootUri: `file://${root}`,
    process: { command: loadingServerCommand(style), cwd: root },
    installHint: "",
    requestTimeoutMs: 10_000,
    startTimeoutMs: 10_000,
    readiness: "progress",
    ...options,
  });
  await client.syncDocument(`file://${root}/a.fake`, "fake", "text\n");
  return {
    client,
    /** Whether the fake has finished loading (its workspace symbols say so). */
    async loaded() {
      return (await client.request<unknown[]>("workspace/symbol", { query: "" })).length > 0;
    },
    async [Symbol.asyncDispose]() {
      await client.shutdown();
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("waitReady() with an index token waits for an index that starts after the first open", async () => {
  await using fake = await start("index", { indexProgressToken: "backgroundIndexProgress" });
  assert.equal(await fake.client.waitReady(5000), true);
  assert.equal(await fake.loaded(), true);
});

Deno.test("waitReady() with an index token is not settled by the open file's push before the index", async () => {
  await using fake = await start("index", { indexProgressToken: "backgroundIndexProgress" });
  // The fake pushes the open file's diagnostics at once and begins its index 300 ms later.
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(await fake.client.waitReady(5000), true);
  assert.equal(await fake.loaded(), true);
});

Deno.test("waitReady() with an index token that never begins waits only its grace", async () => {
  await using fake = await start("never", { indexProgressToken: "backgroundIndexProgress" });
  const started = performance.now();
  assert.equal(await fake.client.waitReady(10_000), true);
  assert.ok(performance.now() - started < 4000);
});

Deno.test("waitReady() with a quiescent notification waits through the gaps between phases", async () => {
  await using fake = await start("phases", { quiescentNotification: "experimental/serverStatus" });
  assert.equal(await fake.client.waitReady(5000), true);
  assert.equal(await fake.loaded(), true);
});

Deno.test("waitReady() with a quiescent notification says false while the server is not done", async () => {
  await using fake = await start("phases", { quiescentNotification: "experimental/serverStatus" });
  assert.equal(await fake.client.waitReady(200), false);
});
