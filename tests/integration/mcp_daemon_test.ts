// `lspgate mcp --daemon` as a relay: the daemon serves the `lsp` tool on each client's connection,
// and the client only passes lines. Run as deno.json's start task runs it (its grant, not -A),
// real deno lsp on copies of the deno fixture, one private runtime folder (one daemon) for all.
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { REPO_ROOT } from "../helpers/program.ts";
import { runtimeFolder } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";
import { assertPipedAnswers, pipedCalls } from "../helpers/mcp_piped.ts";
import { pipeThrough } from "../helpers/line_process.ts";

interface ToolResult {
  isError?: boolean;
  content: { text: string }[];
  structuredContent?: Record<string, unknown>;
}

/** An SDK client over `deno task start mcp --daemon --root ROOT`. */
async function mcpClient(rt: Awaited<ReturnType<typeof runtimeFolder>>, root: string) {
  const [command, ...args] = rt.start(root, "mcp", "--daemon");
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: REPO_ROOT,
    env: { ...Deno.env.toObject(), ...rt.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "lspgate-mcp-daemon-test", version: "0" });
  await client.connect(transport);
  const call = async (args: Record<string, unknown>) =>
    await client.callTool({ name: "lsp", arguments: args }) as ToolResult;
  return { client, call, stderr: () => stderr };
}

Deno.test("two MCP --daemon clients of two roots: one daemon serves both, each about its own root only", async () => {
  const a = await TempWorkspace.copy("deno");
  const b = await TempWorkspace.copy("deno");
  const rt = await runtimeFolder();
  const first = await mcpClient(rt, a.root);
  const second = await mcpClient(rt, b.root);
  try {
    for (const [ws, client] of [[a, first], [b, second]] as const) {
      const at = await ws.locate("src/main.ts", "greet(名前)");
      const result = await client.call({ action: "definition", file: "src/main.ts", ...at });
      assert.notEqual(result.isError, true, JSON.stringify(result) + client.stderr());
      const locations = (result.structuredContent?.locations ?? []) as { file: string }[];
      assert.deepEqual(locations.map((l) => l.file), ["src/greet.ts"]);
    }
    const pid = await rt.daemonPid(a.root);
    assert.ok(pid);
    assert.equal(await rt.daemonPid(b.root), pid, "one daemon for both roots");
    // The daemon serves MCP for the connection's own root: another root's file is refused.
    const other = await first.call({
      action: "hover",
      file: `${b.root}/src/greet.ts`,
      line: 1,
      column: 1,
    });
    assert.equal(other.isError, true);
    assert.match(other.content[0].text, /^OUTSIDE_WORKSPACE/);
    const status = await second.call({ action: "status" });
    assert.ok(!status.content[0].text.includes(a.root), "b's status names nothing of a");
    assert.doesNotMatch(first.stderr() + second.stderr(), /serving in-process/);
  } finally {
    await first.client.close();
    await second.client.close();
    await rt.cleanup(a.root);
    await a.remove();
    await b.remove();
  }
});

Deno.test("mcp --daemon: calls written before stdin closes are all answered through the daemon (one cancelled gets none), then the relay exits 0", async () => {
  const ws = await TempWorkspace.copy("deno");
  const rt = await runtimeFolder();
  try {
    const [command, ...args] = rt.start(ws.root, "mcp", "--daemon");
    const out = await pipeThrough(
      command,
      args,
      pipedCalls(await ws.locate("src/main.ts", "greet(名前)")),
      { cwd: REPO_ROOT, env: { ...Deno.env.toObject(), ...rt.env } },
    );
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.doesNotMatch(stderr, /serving in-process/);
    assertPipedAnswers(out.stdout, (await ws.locate("src/greet.ts", "greet(")).line);
  } finally {
    await rt.cleanup(ws.root);
    await ws.remove();
  }
});
