import assert from "node:assert/strict";
import { join } from "node:path";
import { defaultConfig, type LspGateConfig, type Response, Session } from "../../mod.ts";
import { expectOk, textOf } from "../helpers/session.ts";
import {
  fakeAdapter,
  type FakeMode,
  HUGE_HOVER_CHARS,
  processAlive,
  readFakeLog,
} from "../fakes/fake_server.ts";

interface ServerView {
  state: string;
  pid?: number;
  stderr?: string[];
}

/** A workspace with one `.fake` file; a session whose only server is the fake in `mode`. */
async function open(mode: FakeMode, config: Partial<LspGateConfig> = {}) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_output_" }));
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
  return {
    ask,
    server,
    async close() {
      await session.close();
      const pids = (await readFakeLog(log)).filter((l) => l.method === "start").map((l) => l.pid);
      await Deno.remove(root, { recursive: true });
      await Deno.remove(log);
      for (const pid of pids) assert.ok(!processAlive(pid), `fake ${pid} outlived the session`);
    },
  };
}

const at = { file: "a.fake", line: 1, column: 1 };

Deno.test("valid answers come through a server that writes junk lines and non-JSON bodies between them", async () => {
  const fake = await open("garbage");
  try {
    for (let round = 0; round < 3; round++) {
      const definition = expectOk(await fake.ask({ action: "definition", ...at }));
      assert.deepEqual(definition.details.locations, [
        { file: "a.fake", line: 1, column: 1, endLine: 1, endColumn: 4 },
      ]);
      const hover = expectOk(await fake.ask({ action: "hover", ...at }));
      assert.equal(hover.details.text, "fake hover");
      expectOk(await fake.ask({ action: "references", ...at }));
    }
    assert.equal((await fake.server()).state, "ready");
  } finally {
    await fake.close();
  }
});

Deno.test("a 50 MB hover comes back cut, saying so, and the server keeps serving", async () => {
  const fake = await open("huge-response", { timeoutMs: 60_000 });
  try {
    const hover = expectOk(await fake.ask({ action: "hover", ...at }));
    const text = textOf(hover);
    assert.ok(text.length < 61_000, `hover text is ${text.length} characters`);
    assert.match(text, new RegExp(`output cut at \\d+ of ${HUGE_HOVER_CHARS} characters`));
    const definition = expectOk(await fake.ask({ action: "definition", ...at }));
    assert.equal((definition.details.locations as unknown[]).length, 1);
  } finally {
    await fake.close();
  }
});

Deno.test("a server flooding stderr keeps answering and its kept stderr stays bounded", async () => {
  const fake = await open("stderr-flood");
  try {
    for (let round = 0; round < 5; round++) {
      expectOk(await fake.ask({ action: "hover", ...at }));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const view = await fake.server();
    assert.equal(view.state, "ready");
    assert.ok(view.stderr && view.stderr.length > 0, "stderr lines are kept");
    for (const line of view.stderr) assert.ok(line.length <= 1001, `${line.length} characters`);
  } finally {
    await fake.close();
  }
});

Deno.test({
  name: "a 50 MB hover is bounded in details too, not only in the text",
  async fn() {
    const fake = await open("huge-response", { timeoutMs: 60_000 });
    try {
      const hover = expectOk(await fake.ask({ action: "hover", ...at }));
      const line = JSON.stringify(hover);
      assert.ok(line.length < 200_000, `the response line is ${line.length} characters`);
      assert.equal(hover.details.truncated, true);
    } finally {
      await fake.close();
    }
  },
});
