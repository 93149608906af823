import assert from "node:assert/strict";
import { join } from "node:path";
import { defaultConfig, type LspGateConfig, type Response, Session } from "../../mod.ts";
import { expectError, expectOk } from "../helpers/session.ts";
import {
  fakeAdapter,
  type FakeMode,
  processAlive,
  readFakeLog,
  waitUntil,
} from "../fakes/fake_server.ts";

interface ServerView {
  state: string;
  pid?: number;
  reason?: string;
}

/** A workspace with one `.fake` file; a session whose only server is the fake in `mode`. */
async function open(mode: FakeMode, config: Partial<LspGateConfig>) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_idle_" }));
  const log = await Deno.makeTempFile({ prefix: "lspgate_fake_log_" });
  await Deno.writeTextFile(join(root, "a.fake"), "one two three\n");
  const session = await Session.open({
    root,
    role: "main",
    allowMutations: false,
    adapters: [fakeAdapter(mode, { log })],
    config: { ...defaultConfig(), timeoutMs: 5000, startTimeoutMs: 5000, ...config },
  });
  let id = 1;
  const ask = (request: Record<string, unknown>): Promise<Response> =>
    session.handle({ id: id++, ...request });
  const server = async (): Promise<ServerView> => {
    const status = expectOk(await ask({ action: "status" }));
    return (status.details.servers as ServerView[])[0];
  };
  const starts = async () => (await readFakeLog(log)).filter((l) => l.method === "start");
  return {
    ask,
    server,
    starts,
    async close() {
      await session.close();
      const pids = (await starts()).map((l) => l.pid);
      await Deno.remove(root, { recursive: true });
      await Deno.remove(log);
      for (const pid of pids) assert.ok(!processAlive(pid), `fake ${pid} outlived the session`);
    },
  };
}

const hover = { action: "hover", file: "a.fake", line: 1, column: 1 };

Deno.test("an unused server is stopped after idleShutdownMs and the next request starts it again", async () => {
  const fake = await open("normal", { idleShutdownMs: 300 });
  try {
    expectOk(await fake.ask(hover));
    const first = (await fake.server()).pid!;
    await waitUntil(async () => (await fake.server()).state === "stopped", "it is stopped", 3000);
    assert.match((await fake.server()).reason ?? "", /unused for 300 ms/);
    await waitUntil(() => !processAlive(first), "the process is gone", 3000);

    expectOk(await fake.ask(hover));
    const second = await fake.server();
    assert.equal(second.state, "ready");
    assert.notEqual(second.pid, first);
    assert.equal((await fake.starts()).length, 2);
  } finally {
    await fake.close();
  }
});

Deno.test("a server with a request in flight is not stopped for idleness", async () => {
  const fake = await open("never-answer-hover", { idleShutdownMs: 100, timeoutMs: 1000 });
  try {
    const pending = fake.ask(hover);
    await waitUntil(async () => (await fake.starts()).length === 1, "the server started");
    // Ten idle periods pass while the hover waits for its answer.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const during = await fake.server();
    assert.equal(during.state, "ready");
    // It ends as a timeout, not as a server stopped under it.
    expectError(await pending, "TIMEOUT");
    assert.equal((await fake.server()).pid, during.pid);
    assert.equal((await fake.starts()).length, 1);
  } finally {
    await fake.close();
  }
});
