// One daemon, several clients, on a real session (a real `lspgate daemon serve` process): a client
// that goes away has its in-flight requests cancelled at the language server, and a client that
// misbehaves (garbage, an oversized line, vanishing mid-line) disturbs no other client's request.
// The requests that stay in flight go to a fault-injection server that never answers hover; the
// other client is also served by the real deno lsp meanwhile.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonConnection } from "../../src/daemon/client.ts";
import {
  configFile,
  daemonWorkspace,
  FAKE_SERVER,
  until,
  workspaceHello,
} from "../helpers/daemon.ts";
import type { Hello } from "../../src/daemon/server.ts";
import { readFakeLog } from "../fakes/fake_server.ts";
import { streamLines } from "../helpers/line_process.ts";

/** A client speaking the daemon's wire protocol by hand, to misbehave at will. */
class RawClient {
  readonly #encoder = new TextEncoder();
  readonly #lines: AsyncIterator<string>;

  private constructor(readonly conn: Deno.UnixConn) {
    this.#lines = streamLines(conn.readable)[Symbol.asyncIterator]();
  }

  /** Connects and says hello as a main connection. */
  static async open(socket: string, workspace: Hello["workspace"]): Promise<RawClient> {
    const client = new RawClient(await Deno.connect({ transport: "unix", path: socket }));
    const said = { role: "main", allowMutations: false, workspace };
    await client.write(JSON.stringify({ hello: said }) + "\n");
    const hello = await client.next();
    assert.equal((hello?.hello as { ok?: boolean })?.ok, true, JSON.stringify(hello));
    return client;
  }

  /** Writes raw text (a line needs its own "\n"). */
  async write(text: string): Promise<void> {
    const bytes = this.#encoder.encode(text);
    for (let done = 0; done < bytes.length;) done += await this.conn.write(bytes.subarray(done));
  }

  /** The next line from the daemon, parsed; undefined once it closed the connection. */
  async next(): Promise<Record<string, unknown> | undefined> {
    const next = await this.#lines.next();
    return next.done ? undefined : JSON.parse(next.value);
  }

  close(): void {
    try {
      this.conn.close();
    } catch {
      // Already closed.
    }
  }
}

Deno.test("a client that goes away has its in-flight request cancelled at the server; garbage, an oversized line and a vanished peer leave another client's request in flight", async () => {
  const scratch = await Deno.makeTempDir({ prefix: "lspgate_clients_" });
  const log = join(scratch, "fake.log");
  const config = await configFile({
    servers: {
      hang: {
        command: [
          Deno.execPath(),
          "run",
          "-A",
          "--no-config",
          FAKE_SERVER,
          "--mode",
          "never-answer-hover",
          "--log",
          log,
        ],
        extensions: [".fake"],
      },
    },
  });
  // Unsandboxed: the fake's script is in this checkout.
  const { ws, run, daemon, socket, cleanup } = await daemonWorkspace({
    flags: ["--config", config, "--sandbox", "none"],
  });
  const received = async (method: string, file?: string) =>
    (await readFakeLog(log)).filter((l) =>
      l.method === method && (file === undefined || l.uri?.endsWith(`/${file}`))
    ).length;
  // Never answered; the timeout is far beyond any wait below, so only a cancel can end it.
  const hover = (id: number, file: string) => ({
    id,
    action: "hover",
    file,
    line: 1,
    column: 1,
    timeout: 600_000,
  });
  let other: DaemonConnection | undefined;
  try {
    await ws.write("left.fake", "left\n");
    await ws.write("stays.fake", "stays\n");
    assert.equal((await run(["daemon", "start"])).code, 0);
    const path = socket();
    const workspace = await workspaceHello(ws.root, { config, sandbox: "none" });

    // The other client: one request in flight at the server, for the whole test.
    other = await DaemonConnection.open(path, { role: "main", allowMutations: false, workspace });
    const staying = other.request(hover(1, "stays.fake"));
    await until(async () => await received("textDocument/hover", "stays.fake") === 1, "hover 1");

    // A client with a request in flight sends garbage: an error line, and it is still served.
    const garbage = await RawClient.open(path, workspace);
    await garbage.write(JSON.stringify(hover(1, "left.fake")) + "\n");
    await until(async () => await received("textDocument/hover", "left.fake") === 1, "hover 2");
    await garbage.write("this is not json\n");
    const invalid = await garbage.next();
    assert.equal(
      (invalid?.error as { code?: string })?.code,
      "INVALID_JSON",
      JSON.stringify(invalid),
    );
    assert.equal(await received("$/cancelRequest"), 0);
    // Then a line past the daemon's 16 MiB limit: an error line, and the connection dropped,
    // its request cancelled at the server.
    await garbage.write("x".repeat(17 * 1024 * 1024) + "\n");
    const said: Record<string, unknown>[] = [];
    for (let line = await garbage.next(); line; line = await garbage.next()) said.push(line);
    garbage.close();
    assert.equal(
      (said[0]?.error as { code?: string })?.code,
      "INVALID_INPUT",
      JSON.stringify(said),
    );
    await until(async () => await received("$/cancelRequest") === 1, "the first cancel");

    // A client that vanishes in the middle of a line, with a request in flight: cancelled too.
    const vanishing = await RawClient.open(path, workspace);
    await vanishing.write(JSON.stringify(hover(1, "left.fake")) + "\n");
    await until(async () => await received("textDocument/hover", "left.fake") === 2, "hover 3");
    await vanishing.write('{"id": 2, "action": "hov');
    vanishing.close();
    await until(async () => await received("$/cancelRequest") === 2, "the second cancel");

    // The other client's request was left alone: still in flight, so its own cancel finds it.
    const cancel = await other.request({ id: 2, action: "cancel", target: 1 });
    assert.equal(cancel.ok, true, JSON.stringify(cancel));
    assert.equal(
      (cancel.details as { cancelled?: boolean }).cancelled,
      true,
      JSON.stringify(cancel),
    );
    const answer = await staying;
    assert.equal((answer.error as { code?: string })?.code, "CANCELLED", JSON.stringify(answer));
    await until(async () => await received("$/cancelRequest") === 3, "the third cancel");
    // And its connection serves on, from the real server too.
    const served = await other.request({
      id: 3,
      action: "hover",
      file: "src/main.ts",
      line: 1,
      column: 10,
    });
    assert.equal(served.ok, true, JSON.stringify(served));
    const status = await daemon();
    assert.equal(status.running, true);
    // The other client and the one asking for this status.
    assert.equal(status.connections, 2, JSON.stringify(status));
  } finally {
    other?.close();
    await cleanup();
    await Deno.remove(config);
    await Deno.remove(scratch, { recursive: true });
  }
});
