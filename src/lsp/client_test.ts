import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { pushServerCommand, WATCHED_CHANGE_DELAY_MS } from "../../tests/fakes/push_server.ts";
import { LspClient } from "./client.ts";
import type { LspGateError } from "../errors.ts";

const STILL_CLEAN_MS = 400;

/** A push fake (see tests/fakes/push_server.ts) in a temp root, with one open document. */
async function start(options: { mute?: boolean } = {}) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-client-" }));
  const client = await LspClient.start({
    serverName: "push-fake",
    root,
    rootUri: `file://${root}`,
    process: { command: pushServerCommand(options), cwd: root },
    installHint: "",
    requestTimeoutMs: 10_000,
    startTimeoutMs: 10_000,
    stillCleanAfterMs: STILL_CLEAN_MS,
  });
  const uri = `file://${root}/b.fake`;
  await client.syncDocument(uri, "fake", "uses dep\n");
  const changeDep = async (text: string) => {
    await Deno.writeTextFile(`${root}/dep`, text);
    await client.filesChanged([{ uri: `file://${root}/dep`, type: 2 }]);
  };
  const ask = async (timeoutMs = 5000) => {
    const started = performance.now();
    const answer = await client.diagnostics(uri, timeoutMs);
    return { ...answer, ms: performance.now() - started };
  };
  return {
    changeDep,
    ask,
    async [Symbol.asyncDispose]() {
      await client.shutdown();
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("diagnostics() answers for a watched-file change at once, not when the server chooses", async () => {
  await using fake = await start();
  assert.deepEqual((await fake.ask()).items, []);
  await fake.changeDep("bad");
  const broken = await fake.ask();
  assert.equal(broken.status, "ok");
  assert.deepEqual(broken.items.map((d) => d.message), ["dep is bad"]);
  // The document was sent again, so the server checked it then, not 3 s after the change.
  assert.ok(broken.ms < WATCHED_CHANGE_DELAY_MS / 2, `took ${broken.ms} ms`);
  await fake.changeDep("good");
  assert.deepEqual((await fake.ask()).items, []);
});

Deno.test("diagnostics() keeps a clean file clean only after the server's quiet window", async () => {
  await using fake = await start();
  assert.deepEqual((await fake.ask()).items, []);
  await fake.changeDep("still good");
  const clean = await fake.ask();
  assert.deepEqual([clean.status, clean.items], ["ok", []]);
  assert.ok(clean.ms >= STILL_CLEAN_MS, `answered clean after ${clean.ms} ms`);
});

Deno.test("diagnostics() from a server that never speaks is a timeout, never clean", async () => {
  await using fake = await start({ mute: true });
  const first = await fake.ask(STILL_CLEAN_MS * 2);
  assert.equal(first.status, "timeout");
  await fake.changeDep("bad");
  assert.equal((await fake.ask(STILL_CLEAN_MS * 2)).status, "timeout");
});

Deno.test("diagnostics() matches a push whose URI escapes the path differently (vscode-uri's %40, %2B, %28)", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-client-" }));
  const root = `${base}/ws @+(1)`;
  await Deno.mkdir(root);
  const client = await LspClient.start({
    serverName: "push-fake",
    root,
    rootUri: pathToFileURL(root).href,
    process: { command: pushServerCommand({ encodeUris: true }), cwd: root },
    installHint: "",
    requestTimeoutMs: 10_000,
    startTimeoutMs: 10_000,
  });
  try {
    await Deno.writeTextFile(`${root}/dep`, "bad");
    const uri = pathToFileURL(`${root}/b.fake`).href;
    await client.syncDocument(uri, "fake", "uses dep\n");
    const answer = await client.diagnostics(uri, 10_000);
    assert.equal(answer.status, "ok", JSON.stringify(answer));
    assert.deepEqual(answer.items.map((d) => d.message), ["dep is bad"]);
  } finally {
    await client.shutdown();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("diagnostics() said while waiting for a push: a crash is SERVER_EXITED, a cancel CANCELLED, never a timeout", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-client-" }));
  const open = async () => {
    const client = await LspClient.start({
      serverName: "push-fake",
      root,
      rootUri: pathToFileURL(root).href,
      process: { command: pushServerCommand({ mute: true }), cwd: root },
      installHint: "",
      requestTimeoutMs: 60_000,
      startTimeoutMs: 10_000,
    });
    const uri = pathToFileURL(`${root}/b.fake`).href;
    await client.syncDocument(uri, "fake", "uses dep\n");
    return { client, uri };
  };
  try {
    const crashed = await open();
    const waiting = crashed.client.diagnostics(crashed.uri, 60_000);
    crashed.client.kill("SIGKILL");
    await assert.rejects(waiting, (error: LspGateError) => error.code === "SERVER_EXITED");
    await crashed.client.shutdown();

    const cancelled = await open();
    const controller = new AbortController();
    const asked = cancelled.client.diagnostics(cancelled.uri, 60_000, controller.signal);
    controller.abort();
    await assert.rejects(asked, (error: LspGateError) => error.code === "CANCELLED");
    await cancelled.client.shutdown();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
