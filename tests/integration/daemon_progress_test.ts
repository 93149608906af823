// Progress and MCP through the workspace's daemon: a JSON-lines client with "progress": true and
// an MCP client with a progress token hear what the daemon's server is doing before their answer,
// and `lspgate mcp --daemon` serves from the daemon's warm server. Real lspgate processes over deno
// lsp, which starts in a few milliseconds: behind tests/helpers/lsp_spy.ts its start is held until
// the test has heard it reported, so no answer can come without the progress before it.
import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { configFile, daemonWorkspace, MOD, until } from "../helpers/daemon.ts";
import { readSpyLog, spyCommand } from "../helpers/lsp_spy.ts";
import { spawnMcp } from "../helpers/mcp_lines.ts";
import { streamLines } from "../helpers/line_process.ts";

/**
 * A daemon workspace whose deno lsp runs behind the spy, held at its start until `openGate()`;
 * unsandboxed, since the spy's script is in this checkout.
 */
async function heldStart() {
  const scratch = await Deno.makeTempDir({ prefix: "lspgate_progress_" });
  const gate = join(scratch, "gate");
  const log = join(scratch, "log");
  const config = await configFile({
    servers: {
      deno: { command: spyCommand(log, [Deno.execPath(), "lsp"], { holdUntil: gate }) },
    },
  });
  const flags = ["--config", config, "--sandbox", "none"];
  const setup = await daemonWorkspace({ flags });
  return {
    ...setup,
    flags,
    openGate: () => Deno.writeTextFileSync(gate, ""),
    /** How many times lspgate started (initialized) deno lsp. */
    starts: async () => (await readSpyLog(log)).filter((m) => m.method === "initialize").length,
    cleanup: async () => {
      await setup.cleanup();
      await Deno.remove(config);
      // The spy may still be logging the server's exit as the daemon's stop returns.
      for (let attempt = 0;; attempt++) {
        try {
          await Deno.remove(scratch, { recursive: true });
          break;
        } catch (error) {
          if (attempt === 20) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
  };
}

/** Lines of a stream, as they come. */

Deno.test('JSON lines with --daemon and "progress": true: the daemon\'s progress lines come before the answer', async () => {
  const held = await heldStart();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MOD, "--daemon", ...held.flags, "--root", held.ws.root],
    env: held.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  try {
    const at = await held.ws.locate("src/main.ts", "greet(名前)");
    const request = { id: 7, action: "definition", file: "src/main.ts", ...at, progress: true };
    await writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
    const seen: Record<string, unknown>[] = [];
    for await (const line of streamLines(child.stdout)) {
      const message = JSON.parse(line);
      seen.push(message);
      const progress = message.progress as { message?: string } | undefined;
      if (progress?.message === "deno: starting") held.openGate();
      if ("ok" in message) await writer.close();
    }
    assert.equal((await child.status).code, 0, await stderr);
    assert.doesNotMatch(await stderr, /serving in-process/);
    const answer = seen.at(-1)!;
    assert.equal(answer.id, 7);
    assert.equal(answer.ok, true, JSON.stringify(answer));
    const progress = seen.slice(0, -1) as {
      id: unknown;
      progress: { servers: { server: string; state: string }[]; message: string };
    }[];
    assert.ok(progress.length >= 1, JSON.stringify(seen));
    for (const line of progress) assert.equal(line.id, 7);
    assert.deepEqual(progress[0].progress.servers, [{
      server: "deno",
      state: "starting",
      work: [],
    }]);
    // Through the daemon: the request was its, and its server is the one started.
    const status = await held.daemon();
    assert.equal(status.requests, 1);
    assert.equal(await held.starts(), 1);
  } finally {
    await writer.close().catch(() => {});
    await child.status;
    await stderr;
    await held.cleanup();
  }
});

Deno.test("lspgate mcp --daemon: a progress token hears the daemon's server start, and a second MCP process is served by the same warm server", async () => {
  const held = await heldStart();
  /** An SDK client over `lspgate mcp --daemon`; its exit status lands in `exited`. */
  const connect = async () => {
    // sh reports lspgate's exit status on stderr, as the SDK transport does not (see mcp_test.ts).
    const transport = new StdioClientTransport({
      command: "sh",
      args: [
        "-c",
        'trap "" TERM; "$@"; echo "lspgate exited with $?" >&2',
        "sh",
        Deno.execPath(),
        "run",
        "-A",
        MOD,
        "mcp",
        "--daemon",
        ...held.flags,
        "--root",
        held.ws.root,
      ],
      env: { ...Deno.env.toObject(), ...held.env },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
    const ended = new Promise<void>((resolve) => transport.stderr?.on("end", () => resolve()));
    const client = new Client({ name: "lspgate-daemon-test", version: "0" });
    const errors: Error[] = [];
    client.onerror = (error: Error) => errors.push(error);
    await client.connect(transport);
    return {
      client,
      errors,
      /** Closes the client; what lspgate said on stderr, its exit line last. */
      close: async () => {
        await client.close();
        await ended;
        return stderr;
      },
    };
  };
  const first = await connect();
  let second: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    const heard: { progress: number; message?: string }[] = [];
    const at = await held.ws.locate("src/main.ts", "greet(名前)");
    const result = await first.client.callTool(
      { name: "lsp", arguments: { action: "definition", file: "src/main.ts", ...at } },
      undefined,
      {
        onprogress: (update: { progress: number; message?: string }) => {
          heard.push(update);
          if (update.message === "deno: starting") held.openGate();
        },
      },
    );
    assert.notEqual(result.isError, true, JSON.stringify(result));
    const target = await held.ws.within("src/greet.ts", "function greet(", "greet");
    const structured = result.structuredContent as { locations: Record<string, unknown>[] };
    assert.deepEqual(
      structured.locations.map((l) => [l.file, l.line, l.column]),
      [["src/greet.ts", target.line, target.column]],
    );
    assert.equal(heard[0]?.message, "deno: starting", JSON.stringify(heard));
    const warm = await held.daemon();
    assert.equal(warm.requests, 1);
    const pid = warm.servers.find((s) => s.state === "running")?.pid;
    assert.ok(pid, JSON.stringify(warm));

    // The first MCP process leaves (exit 0); the daemon and its server stay.
    assert.match(await first.close(), /lspgate exited with 0\n$/);
    assert.deepEqual(first.errors, []);
    second = await connect();
    const status = await second.client.callTool({ name: "lsp", arguments: { action: "status" } });
    const servers = (status.structuredContent as { servers: { pid?: number }[] }).servers;
    assert.deepEqual(servers.map((s) => s.pid), [pid], JSON.stringify(status));
    const after = await held.daemon();
    assert.equal(after.requests, 2);
    assert.equal(after.servers.find((s) => s.state === "running")?.pid, pid);
    assert.equal(await held.starts(), 1);
    assert.match(await second.close(), /lspgate exited with 0\n$/);
    assert.deepEqual(second.errors, []);
    second = undefined;
  } finally {
    await first.client.close().catch(() => {});
    await second?.close().catch(() => {});
    await held.cleanup();
  }
});

Deno.test("lspgate mcp --daemon: a call in flight when the daemon is killed answers SERVER_EXITED; the next is answered by a new daemon", async () => {
  const held = await heldStart();
  const { child, send, next, introduce, close } = spawnMcp(
    Deno.execPath(),
    ["run", "-A", MOD, "mcp", "--daemon", ...held.flags, "--root", held.ws.root],
    { env: held.env },
  );
  try {
    await introduce();
    const at = await held.ws.locate("src/main.ts", "greet(名前)");
    const definition = (id: number) =>
      send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "lsp", arguments: { action: "definition", file: "src/main.ts", ...at } },
      });
    // Held at its server's start: in flight when the daemon dies.
    await definition(2);
    await until(async () => (await held.daemon()).servers.length > 0, "the server starting");
    const first = await held.daemon();
    Deno.kill(first.pid!, "SIGKILL");
    const lost = await next();
    assert.equal(lost.id, 2);
    assert.equal(lost.result.isError, true);
    assert.match(lost.result.content[0].text, /^SERVER_EXITED/);
    held.openGate();
    // The relay introduces the agent to a new daemon as the first time, unseen by the agent.
    await definition(3);
    const answered = await next();
    assert.equal(answered.id, 3, JSON.stringify(answered));
    assert.notEqual(answered.result.isError, true, JSON.stringify(answered));
    assert.deepEqual(
      answered.result.structuredContent.locations.map((l: { file: string }) => l.file),
      ["src/greet.ts"],
    );
    const second = await held.daemon();
    assert.ok(second.pid && second.pid !== first.pid);
  } finally {
    await close();
    await child.status;
    await held.cleanup();
  }
});
