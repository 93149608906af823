import assert from "node:assert/strict";
import { fakeAdapter, processAlive } from "../../tests/fakes/fake_server.ts";
import type { ClientOptions } from "./client.ts";
import { WorkerClient } from "./worker_client.ts";

async function options(): Promise<ClientOptions> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-worker-" }));
  const { command } = await fakeAdapter("normal").resolve({
    root,
    workspace: root,
    trusted: false,
  });
  return {
    serverName: "fake",
    root,
    rootUri: `file://${root}`,
    process: { command, cwd: root },
    installHint: "",
    requestTimeoutMs: 10_000,
    startTimeoutMs: 10_000,
    readiness: "immediate",
  };
}

Deno.test("WorkerClient runs the server from a Worker and answers like an LspClient", async () => {
  const opts = await options();
  const client = await WorkerClient.start(opts, { run: [opts.process.command[0]] });
  try {
    assert.equal(client.supports("textDocument/definition"), true);
    assert.equal(client.supports("textDocument/prepareTypeHierarchy"), false);
    const uri = `file://${opts.root}/a.fake`;
    const doc = await client.syncDocument(uri, "fake", "one\ntwo\n");
    assert.equal(doc.version, 1);
    assert.equal(client.documents.get(uri)?.version, 1);
    const result = await client.request("textDocument/hover", {
      textDocument: { uri },
      position: { line: 0, character: 0 },
    });
    assert.ok(result && typeof result === "object");
  } finally {
    await client.shutdown();
    await Deno.remove(opts.root, { recursive: true });
  }
  assert.equal(processAlive(client.pid), false);
});

Deno.test("a Worker narrowed to one binary cannot spawn another: PERMISSION_DENIED", async () => {
  const opts = await options();
  try {
    await assert.rejects(
      WorkerClient.start(opts, { run: ["/bin/true"] }),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, "PERMISSION_DENIED");
        assert.match(error.message, /--allow-run/);
        return true;
      },
    );
  } finally {
    await Deno.remove(opts.root, { recursive: true });
  }
});
