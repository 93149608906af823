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
  restarts: number;
}

/** A workspace with two `.fake` files and a session whose only server is the fake in `mode`. */
async function open(
  mode: FakeMode,
  config: Partial<LspGateConfig> = {},
  allowMutations = false,
) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_crash_" }));
  const log = await Deno.makeTempFile({ prefix: "lspgate_fake_log_" });
  await Deno.writeTextFile(join(root, "a.fake"), "one two three\n");
  await Deno.writeTextFile(join(root, "b.fake"), "four five six\n");
  const session = await Session.open({
    root,
    role: "main",
    allowMutations,
    adapters: [fakeAdapter(mode, { log })],
    config: { ...defaultConfig(), timeoutMs: 5000, startTimeoutMs: 5000, ...config },
  });
  let id = 1;
  const ask = (request: Record<string, unknown>): Promise<Response> =>
    session.handle({ id: id++, ...request });
  const server = async (): Promise<ServerView> => {
    const status = expectOk(await ask({ action: "status" }));
    const servers = status.details.servers as ServerView[];
    assert.equal(servers.length, 1);
    return servers[0];
  };
  const starts = async () => (await readFakeLog(log)).filter((l) => l.method === "start");
  return {
    root,
    log,
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

const hover = (file: string) => ({ action: "hover", file, line: 1, column: 1 });
const definition = (file: string) => ({ action: "definition", file, line: 1, column: 1 });

Deno.test("a server that exits mid-request fails it with SERVER_EXITED and its stderr; the next request restarts it with its documents open again", async () => {
  const fake = await open("exit-mid-request");
  try {
    expectOk(await fake.ask(hover("a.fake")));
    expectOk(await fake.ask(hover("b.fake")));
    const first = await fake.server();
    assert.equal(first.state, "ready");

    const message = expectError(await fake.ask(definition("a.fake")), "SERVER_EXITED");
    assert.match(message, /exited with code 3/);
    assert.match(message, /fake: segfault while resolving the definition/);
    // Noticed at once: the state changed before anyone asked again.
    const crashed = await fake.server();
    assert.equal(crashed.state, "crashed");
    assert.match(crashed.reason ?? "", /exited with code 3/);
    assert.ok(!processAlive(first.pid!));

    // Changed on disk while no server ran: the new server must get today's text, freshly opened.
    await Deno.writeTextFile(join(fake.root, "b.fake"), "seven eight\n");
    expectOk(await fake.ask(hover("a.fake")));
    const second = await fake.server();
    assert.equal(second.state, "ready");
    assert.equal(second.restarts, 1);
    assert.notEqual(second.pid, first.pid);

    const received = (await readFakeLog(fake.log)).filter((l) => l.pid === second.pid);
    const opened = received.filter((l) => l.method === "textDocument/didOpen");
    assert.deepEqual(
      opened.map((l) => [l.uri?.split("/").pop(), l.version]).sort(),
      [["a.fake", 1], ["b.fake", 1]],
    );
    assert.equal(opened.find((l) => l.uri?.endsWith("b.fake"))?.text, "seven eight\n");
    assert.ok(!received.some((l) => l.method === "textDocument/didChange"));
  } finally {
    await fake.close();
  }
});

Deno.test("a server that fails to start is remembered: the next call fails fast with SERVER_START_FAILED", async () => {
  const fake = await open("exit-during-initialize");
  try {
    const message = expectError(await fake.ask(hover("a.fake")), "SERVER_START_FAILED");
    assert.match(message, /exited with code 2/);
    assert.match(message, /fake: cannot start, the project is broken/);
    const again = expectError(await fake.ask(hover("b.fake")), "SERVER_START_FAILED");
    assert.equal(again, message);
    assert.equal((await fake.starts()).length, 1, "the second call must not start it again");
    assert.equal((await fake.server()).state, "failed");
  } finally {
    await fake.close();
  }
});

Deno.test("after five crashes within three minutes a server stays down until the restart action", async () => {
  const fake = await open("crash-always", {}, true);
  try {
    for (let crash = 1; crash <= 5; crash++) {
      const message = expectError(await fake.ask(hover("a.fake")), "SERVER_EXITED");
      assert.match(message, /exited with code 4/, `crash ${crash}`);
    }
    assert.equal((await fake.starts()).length, 5);

    const refused = expectError(await fake.ask(hover("a.fake")), "SERVER_EXITED");
    assert.match(refused, /not restarted: it crashed 5 times in 3 minutes/);
    assert.match(refused, /restart action/);
    assert.equal((await fake.starts()).length, 5, "a disabled server is not started");
    const disabled = await fake.server();
    assert.equal(disabled.state, "disabled");
    assert.match(disabled.reason ?? "", /crashed 5 times/);

    expectOk(await fake.ask({ action: "restart", server: "fake" }));
    assert.equal((await fake.server()).state, "stopped");
    expectError(await fake.ask(hover("a.fake")), "SERVER_EXITED");
    assert.equal((await fake.starts()).length, 6, "restart lets the next request start it");
    await waitUntil(async () => (await fake.server()).state === "crashed", "the crash is seen");
  } finally {
    await fake.close();
  }
});
