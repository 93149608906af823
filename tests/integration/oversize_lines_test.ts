// A request line too long to be read (over 16 MiB; over 10 MiB for MCP) is answered under its own id, wherever the id
// is in it (MCP's SDK writes it last), so the agent waiting for that answer gets it, and the next
// request is served: JSON lines in-process and through `--daemon`, and `mcp --daemon`'s relay.
// Run as deno.json's start task runs it (its grant, not -A), one private runtime folder each.
import assert from "node:assert/strict";
import { REPO_ROOT } from "../helpers/program.ts";
import { runtimeFolder } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";
import { spawnLines } from "../helpers/line_process.ts";
import { spawnMcp } from "../helpers/mcp_lines.ts";

const PAST_LIMIT = "x".repeat(16.5 * 1024 * 1024);

for (const daemon of [false, true]) {
  Deno.test(`JSON lines${daemon ? " --daemon" : ""}: a request over 16 MiB is answered INVALID_INPUT under its id (last in the line), and the next is served`, async () => {
    const ws = await TempWorkspace.copy("deno");
    const rt = await runtimeFolder();
    const [command, ...args] = rt.start(ws.root, ...(daemon ? ["--daemon"] : []));
    const lines = spawnLines(command, args, { cwd: REPO_ROOT, env: rt.env });
    try {
      await lines.send({ action: "status", note: PAST_LIMIT, id: "past-limit" });
      const refused = await lines.next();
      assert.equal(refused.id, "past-limit", JSON.stringify(refused).slice(0, 300));
      assert.equal(refused.ok, false);
      assert.equal(refused.error.code, "INVALID_INPUT");
      assert.match(refused.error.message, /^line of 173015\d{2} characters is too long$/);
      await lines.send({ id: 2, action: "status" });
      const status = await lines.next();
      assert.equal(status.id, 2);
      assert.equal(status.ok, true, JSON.stringify(status));
      assert.equal(typeof status.details.daemonPid, daemon ? "number" : "undefined");
    } finally {
      await lines.close();
      await lines.child.status;
      await rt.cleanup(ws.root);
      await ws.remove();
    }
  });
}

Deno.test("MCP --daemon: a message over 10 MiB is answered -32600 under its id by the daemon, one over 16 MiB by the relay (its id written last, as the SDK does), and the relay serves on", async () => {
  const ws = await TempWorkspace.copy("deno");
  const rt = await runtimeFolder();
  const [command, ...args] = rt.start(ws.root, "mcp", "--daemon");
  const { child, send, next, introduce, close } = spawnMcp(command, args, {
    cwd: REPO_ROOT,
    env: rt.env,
  });
  try {
    await introduce();
    await send({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: {
        name: "lsp",
        arguments: { action: "status", note: "x".repeat(10.5 * 1024 * 1024) },
      },
    });
    const byDaemon = await next();
    assert.equal(byDaemon.id, 7, JSON.stringify(byDaemon));
    assert.equal(byDaemon.error.code, -32600);
    assert.match(byDaemon.error.message, /more than the 10485760 bytes \(10 MiB\)/);
    await send({
      method: "tools/call",
      params: { name: "lsp", arguments: { action: "status", note: PAST_LIMIT } },
      jsonrpc: "2.0",
      id: 9,
    });
    const refused = await next();
    assert.equal(refused.id, 9, JSON.stringify(refused));
    assert.equal(refused.error.code, -32600);
    assert.match(refused.error.message, /more than the 16777216 \(16 MiB\) a line may be/);
    await send({ jsonrpc: "2.0", id: 10, method: "tools/list" });
    const listed = await next();
    assert.equal(listed.id, 10);
    assert.deepEqual(listed.result.tools.map((t: { name: string }) => t.name), ["lsp"]);
  } finally {
    await close();
    await child.status;
    await rt.cleanup(ws.root);
    await ws.remove();
  }
});
