import assert from "node:assert/strict";
import { join } from "node:path";
import { defaultConfig, type LspGateConfig, type Response, Session } from "../../mod.ts";
import { serveJsonLines } from "../../src/frontends/json_lines.ts";
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
async function open(mode: FakeMode, config: Partial<LspGateConfig> = {}, child = false) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_hang_" }));
  const log = await Deno.makeTempFile({ prefix: "lspgate_fake_log_" });
  await Deno.writeTextFile(join(root, "a.fake"), "one two three\n");
  const session = await Session.open({
    root,
    role: "main",
    allowMutations: false,
    adapters: [fakeAdapter(mode, { log, child })],
    config: { ...defaultConfig(), timeoutMs: 5000, startTimeoutMs: 5000, ...config },
  });
  let id = 1;
  const ask = (request: Record<string, unknown>): Promise<Response> =>
    session.handle({ id: id++, ...request });
  const server = async (): Promise<ServerView> => {
    const status = expectOk(await ask({ action: "status" }));
    return (status.details.servers as ServerView[])[0];
  };
  const received = async (method: string) =>
    (await readFakeLog(log)).filter((l) => l.method === method);
  /** Every pid the fake started: servers and their children. */
  const pids = async () =>
    (await readFakeLog(log)).flatMap((l) =>
      l.method === "start" ? [l.pid] : l.method === "child" ? [l.child!] : []
    );
  return {
    root,
    session,
    ask,
    server,
    received,
    pids,
    async close(closeSession = true) {
      if (closeSession) await session.close();
      const all = await pids();
      await Deno.remove(root, { recursive: true });
      await Deno.remove(log);
      // SIGKILL is sent before close() returns; the kernel's teardown of a process is not
      // instant on a loaded machine, so it gets a moment (not a timing assertion).
      await waitUntil(
        () => all.every((pid) => !processAlive(pid)),
        `every process is gone after the session closed (${all.join(", ")})`,
        2000,
      ).catch(() => {});
      for (const pid of all) assert.ok(!processAlive(pid), `process ${pid} outlived the session`);
    },
  };
}

const hover = { action: "hover", file: "a.fake", line: 1, column: 1 };
const definition = { action: "definition", file: "a.fake", line: 1, column: 1 };

Deno.test("a request that takes too long answers TIMEOUT, tells the server with $/cancelRequest, and leaves it serving", async () => {
  const fake = await open("never-answer-hover", { timeoutMs: 300 });
  try {
    const message = expectError(await fake.ask(hover), "TIMEOUT");
    assert.match(message, /textDocument\/hover timed out after 300 ms/);
    await waitUntil(async () => (await fake.received("$/cancelRequest")).length === 1, "cancel");

    // The per-call `timeout` field wins over the session's.
    const started = performance.now();
    expectError(await fake.ask({ ...hover, timeout: 100 }), "TIMEOUT");
    assert.ok(performance.now() - started < 250);

    // Two timeouts, then an answer: the server is alive, so a third timeout does not kill it.
    const pid = (await fake.server()).pid!;
    expectOk(await fake.ask(definition));
    expectError(await fake.ask(hover), "TIMEOUT");
    // Requests that time out together (a batch) count as one silence, not three.
    const batch = await Promise.all([fake.ask(hover), fake.ask(hover), fake.ask(hover)]);
    for (const response of batch) expectError(response, "TIMEOUT");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(processAlive(pid));
    const after = await fake.server();
    assert.equal(after.pid, pid);
    assert.equal(after.state, "ready");
    assert.equal((await fake.received("start")).length, 1);
  } finally {
    await fake.close();
  }
});

Deno.test("a request whose file cannot be sent to a server that stopped reading answers TIMEOUT on time", async () => {
  // The didOpen of a 1 MiB file fills the pipe of a server that reads nothing more; the request
  // behind it waited for that write forever, its own timeout not yet started (a helper's find:
  // pyright busy with a 50 MB file). Now its timeout runs from the start.
  const fake = await open("stop-reading", { timeoutMs: 1000 });
  try {
    await Deno.writeTextFile(join(fake.root, "big.fake"), "word ".repeat(210_000) + "\n");
    // Bounded so that the old behaviour fails the test instead of hanging the suite.
    let bound: ReturnType<typeof setTimeout> | undefined;
    const answer = await Promise.race([
      fake.ask({ action: "hover", file: "big.fake", line: 1, column: 1 }),
      new Promise<undefined>((resolve) => bound = setTimeout(() => resolve(undefined), 30_000)),
    ]);
    clearTimeout(bound);
    assert.ok(answer, "the request was never answered");
    assert.match(expectError(answer, "TIMEOUT"), /timed out after 1000 ms/);
  } finally {
    await fake.close();
  }
});

Deno.test("a file past 16 MiB is not handed to the server: INVALID_INPUT, and the server serves on", async () => {
  // A 50 MB one-line file held every request behind it back for seconds (a helper's find).
  const fake = await open("normal");
  try {
    await Deno.writeTextFile(join(fake.root, "huge.fake"), "x".repeat(17 * 2 ** 20));
    const message = expectError(
      await fake.ask({ action: "hover", file: "huge.fake", line: 1, column: 1 }),
      "INVALID_INPUT",
    );
    assert.equal(
      message,
      "the file is 17.0 MiB; lspgate hands a language server files of at most 16 MiB " +
        "(generated code or data?)",
    );
    assert.equal((await fake.received("textDocument/didOpen")).length, 0);
    expectOk(await fake.ask(hover));
  } finally {
    await fake.close();
  }
});

Deno.test("a server that stops answering is killed with its process group after three timeouts in a row, and restarted", async () => {
  const fake = await open("never-answer", { timeoutMs: 200 }, true);
  try {
    for (let i = 0; i < 3; i++) expectError(await fake.ask(hover), "TIMEOUT");
    const [server, child] = await fake.pids();
    assert.ok(child !== undefined, "the fake started a child");
    await waitUntil(() => !processAlive(server) && !processAlive(child), "both are gone", 3000);
    // The exit status comes a moment after the process is gone.
    await waitUntil(async () => (await fake.server()).state === "crashed", "the crash is seen");
    const view = await fake.server();
    assert.match(view.reason ?? "", /stopped answering \(3 requests in a row timed out/);

    expectError(await fake.ask(hover), "TIMEOUT");
    const starts = await fake.received("start");
    assert.equal(starts.length, 2, "the next request starts a new server");
    assert.equal((await fake.server()).pid, starts[1].pid);
  } finally {
    await fake.close();
  }
});

Deno.test("a JSON-lines cancel of an in-flight hover answers CANCELLED and sends $/cancelRequest", async () => {
  const fake = await open("never-answer-hover");
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const output = new TransformStream<Uint8Array, Uint8Array>();
  const served = serveJsonLines(fake.session, input.readable, output.writable);
  const writer = input.writable.getWriter();
  const send = (line: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(line) + "\n"));
  const answers: Record<string, unknown>[] = [];
  const reading = (async () => {
    const decoder = new TextDecoderStream();
    let buffer = "";
    for await (const text of output.readable.pipeThrough(decoder)) {
      buffer += text;
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) answers.push(JSON.parse(line));
    }
  })();
  try {
    await send({ id: 1, ...hover });
    await waitUntil(async () => (await fake.received("textDocument/hover")).length === 1, "hover");
    await send({ id: 2, action: "cancel", target: 1 });
    await waitUntil(() => answers.length === 2, "both answers");
    const byId = Object.fromEntries(answers.map((a) => [a.id, a]));
    assert.deepEqual((byId[2] as { details: unknown }).details, { target: 1, cancelled: true });
    assert.equal((byId[1] as { error: { code: string } }).error.code, "CANCELLED");
    await waitUntil(async () => (await fake.received("$/cancelRequest")).length === 1, "cancel");
    // The server serves on.
    await send({ id: 3, ...definition });
    await waitUntil(() => answers.length === 3, "the next answer");
    assert.equal(answers[2].ok, true, JSON.stringify(answers[2]));
  } finally {
    await writer.close();
    await served;
    // serveJsonLines leaves its output open (it is stdout in real use).
    await output.writable.close();
    await reading;
    await fake.close(false);
  }
});

Deno.test("closing the session kills a server that ignores shutdown (and its child) once the grace period is over", async () => {
  const fake = await open("ignore-shutdown", {}, true);
  expectOk(await fake.ask(hover));
  // How long that takes is the benchmark's business (CI machines are noisy); that it happens is ours.
  await fake.session.close();
  assert.equal((await fake.received("shutdown")).length, 1);
  // close(false) asserts that every process the fake started is gone.
  await fake.close(false);
});
