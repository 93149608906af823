import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { copyWorkspace, MOD } from "../../tests/fixtures/frontends/workspace.ts";
import { V8_FLAGS_ARG } from "../v8_flags.ts";
import { GuardedStdioTransport } from "./mcp_transport.ts";
import { assertPipedAnswers, pipedCalls } from "../../tests/helpers/mcp_piped.ts";
import { pipeThrough } from "../../tests/helpers/line_process.ts";

/** A transport over in-memory streams; what it delivers and what it answers. */
function pair(maxBytes: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new GuardedStdioTransport(stdin, stdout, maxBytes);
  const delivered: unknown[] = [];
  const answered: Record<string, unknown>[] = [];
  transport.onmessage = (m) => delivered.push(m);
  let buffer = "";
  stdout.on("data", (chunk: Uint8Array) => {
    buffer += new TextDecoder().decode(chunk);
    let at;
    while ((at = buffer.indexOf("\n")) !== -1) {
      answered.push(JSON.parse(buffer.slice(0, at)));
      buffer = buffer.slice(at + 1);
    }
  });
  return { stdin, transport, delivered, answered };
}

Deno.test("GuardedStdioTransport answers an oversize message under its id and reads the next", async () => {
  const { stdin, transport, delivered, answered } = pair(1000);
  await transport.start();
  const big = JSON.stringify({
    jsonrpc: "2.0",
    method: "tools/call",
    params: { name: "lsp", arguments: { content: "x".repeat(5000) } },
    id: 41,
  });
  // Streamed in pieces, as a pipe gives it.
  for (let i = 0; i < big.length; i += 333) stdin.write(big.slice(i, i + 333));
  stdin.write("\n" + JSON.stringify({ jsonrpc: "2.0", id: 42, method: "ping" }) + "\n");
  stdin.write("not json\n");
  stdin.write(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 43,
      method: "tools/call",
      params: { name: "lsp", arguments: null },
    }) +
      "\n",
  );
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(delivered, [{ jsonrpc: "2.0", id: 42, method: "ping" }]);
  assert.equal(answered.length, 3);
  assert.deepEqual(answered[0].id, 41);
  assert.equal((answered[0].error as { code: number }).code, -32600);
  assert.match(
    (answered[0].error as { message: string }).message,
    /is 5\d{3} bytes, more than the 1000 bytes/,
  );
  assert.deepEqual([answered[1].id, (answered[1].error as { code: number }).code], [null, -32700]);
  assert.deepEqual(answered[2], {
    jsonrpc: "2.0",
    id: 43,
    error: {
      code: -32602,
      message:
        "Invalid params for tools/call: params.arguments: Invalid input: expected record, received null",
    },
  });
  await transport.close();
});

Deno.test("mcp: a 12 MB tools/call is an error answer, and the server keeps serving (status)", async () => {
  await using ws = await copyWorkspace();
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    // The grant of `deno task start`.
    args: [
      "run",
      V8_FLAGS_ARG,
      "--allow-read",
      "--allow-env",
      "--allow-run",
      MOD,
      "mcp",
      "--root",
      ws.root,
    ],
    env: Deno.env.toObject(),
    stderr: "pipe",
  });
  const client = new Client({ name: "lspgate-test", version: "0" });
  await client.connect(transport);
  try {
    await assert.rejects(
      client.callTool({
        name: "lsp",
        arguments: { action: "diagnostics", file: "src/main.ts", content: "x".repeat(12_000_000) },
      }),
      (error: Error & { code?: number }) => {
        assert.equal(error.code, -32600);
        assert.match(error.message, /more than the 10485760 bytes \(10 MiB\)/);
        return true;
      },
    );
    const status = await client.callTool({ name: "lsp", arguments: { action: "status" } });
    assert.equal(status.isError, undefined);
    assert.match((status.content as { text: string }[])[0].text, /^lspgate /);
  } finally {
    await client.close();
  }
});

Deno.test("mcp: calls written before stdin closes are all answered (one cancelled gets none), then lspgate exits 0", async () => {
  await using ws = await copyWorkspace();
  const target = await ws.find("src/greet.ts", "greet(");
  const out = await pipeThrough(
    Deno.execPath(),
    // The grant of `deno task start`.
    ["run", V8_FLAGS_ARG, "--allow-read", "--allow-env", "--allow-run", MOD, "mcp"],
    pipedCalls(await ws.find("src/main.ts", "greet")),
    { cwd: ws.root },
  );
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assertPipedAnswers(out.stdout, target.line);
});
