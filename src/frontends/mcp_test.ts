import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ACTIONS } from "../actions/table.ts";
import { ADAPTERS } from "../../adapters/mod.ts";
import { defaultConfig } from "../config.ts";
import { Session } from "../session.ts";
import { spyCommand } from "../../tests/helpers/lsp_spy.ts";
import { copyWorkspace, MOD, openTestSession } from "../../tests/fixtures/frontends/workspace.ts";
import { createMcpServer, TOOL_NAME } from "./mcp.ts";

/** An SDK client talking to createMcpServer(session) over the in-memory transport pair. */
async function connect(session: Session): Promise<Client & AsyncDisposable> {
  const server = createMcpServer(session);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "lspgate-test", version: "0" });
  await client.connect(clientSide);
  return Object.assign(client, {
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
    },
  });
}

/** The text of a tool result, whether it is an error, and its structured content. */
async function call(client: Client, args: Record<string, unknown>) {
  const result = await client.callTool({ name: TOOL_NAME, arguments: args });
  const content = result.content as { type: string; text: string }[];
  return {
    isError: result.isError === true,
    text: content.map((c) => c.text).join("\n"),
    structured: result.structuredContent as Record<string, unknown> | undefined,
  };
}

Deno.test("mcp: tools/list shows one lsp tool with every action, the fields and read-only hints for a subagent", async () => {
  await using ws = await copyWorkspace();
  const session = await openTestSession(ws.root, { role: "subagent" });
  try {
    await using client = await connect(session);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["lsp"]);
    const [tool] = tools;
    const properties = tool.inputSchema.properties as Record<string, Record<string, unknown>>;
    // The canonical names, and any other name: another agent's spelling is the session's to judge.
    const [canonical, other] = properties.action.anyOf as Record<string, unknown>[];
    assert.deepEqual(canonical.enum, [...ACTIONS.keys()]);
    assert.deepEqual(other, {
      type: "string",
      description: "Another agent's name for an action (goToDefinition, findReferences, …).",
    });
    // `operation` may stand for `action`, so nothing is required by the schema.
    assert.equal(tool.inputSchema.required, undefined);
    for (
      const field of [
        "file",
        "files",
        "line",
        "column",
        "symbol",
        "query",
        "new_name",
        "apply",
        "edit_hash",
        "include_declaration",
        "severity",
        "timeout",
        "server",
        "payload",
        "end_line",
        "end_column",
      ]
    ) {
      assert.ok(properties[field], `no ${field} in the schema`);
      assert.match(String(properties[field].description), /\w/, `${field} has no description`);
    }
    assert.equal(properties.line.type, "integer");
    assert.equal(properties.column.type, "integer");
    assert.match(String(properties.column.description), /1-based.*code points/);
    assert.deepEqual(properties.files.items, { type: "string" });
    assert.equal(tool.annotations?.readOnlyHint, true);
    assert.equal(tool.annotations?.destructiveHint, false);
    assert.equal(tool.annotations?.openWorldHint, false);
    for (const action of ACTIONS.values()) {
      assert.ok(
        tool.description?.includes(`- ${action.name}: ${action.summary}`),
        `the description misses ${action.name}`,
      );
    }
    assert.match(tool.description ?? "", /read-only \(role subagent\)/);
    assert.ok(
      tool.description?.includes(
        "call again with apply: true and the preview's details.edit_hash as edit_hash",
      ),
      tool.description,
    );
    assert.match(tool.description ?? "", /EDIT_CONFLICT and writes nothing/);
    assert.match(tool.description ?? "", /operation, filePath, character/);
    // details come back as structuredContent, described by a permissive output schema.
    const output = tool.outputSchema as Record<string, unknown>;
    assert.equal(output.type, "object");
    assert.equal(output.required, undefined);
    assert.deepEqual(output.additionalProperties, {});
    const described = output.properties as Record<string, Record<string, unknown>>;
    for (const field of ["locations", "symbols", "files", "changes", "edit_hash", "sandboxed"]) {
      assert.match(String(described[field]?.description), /\w/, `${field} is not described`);
    }
    assert.equal(described.edit_hash.type, "string");
  } finally {
    await session.close();
  }
});

Deno.test("mcp: a main session with mutations marks the tool destructive", async () => {
  await using ws = await copyWorkspace();
  const session = await openTestSession(ws.root, { allowMutations: true });
  try {
    await using client = await connect(session);
    const [tool] = (await client.listTools()).tools;
    assert.equal(tool.annotations?.readOnlyHint, false);
    assert.equal(tool.annotations?.destructiveHint, true);
    assert.equal(tool.annotations?.openWorldHint, false);
  } finally {
    await session.close();
  }
});

Deno.test("mcp: a subagent's rename with apply is a tool error ACTION_NOT_ALLOWED", async () => {
  await using ws = await copyWorkspace();
  const session = await openTestSession(ws.root, { role: "subagent" });
  try {
    await using client = await connect(session);
    const result = await call(client, {
      action: "rename",
      file: "src/greet.ts",
      line: 2,
      symbol: "greet",
      new_name: "hello",
      apply: true,
    });
    assert.equal(result.isError, true);
    assert.match(result.text, /^ACTION_NOT_ALLOWED: .*--role subagent/);
  } finally {
    await session.close();
  }
});

Deno.test("mcp: a call the client cancels is cancelled in the session", async () => {
  const requests: Record<string, unknown>[] = [];
  let cancelled!: () => void;
  const cancel = new Promise<void>((resolve) => cancelled = resolve);
  // A stand-in session: the first request waits until a cancel names it.
  const session = {
    facts: { role: "main", allowMutations: false, version: "0" },
    handle(request: Record<string, unknown>) {
      requests.push(request);
      if (request.action === "cancel") cancelled();
      return request.action === "cancel"
        ? Promise.resolve({ id: request.id, ok: true, content: [], details: {} })
        : cancel.then(() => ({
          id: request.id,
          ok: false,
          error: { code: "CANCELLED", message: "cancelled" },
        }));
    },
  } as unknown as Session;
  await using client = await connect(session);
  const controller = new AbortController();
  const pending = client.callTool(
    { name: TOOL_NAME, arguments: { action: "references", file: "a.ts", query: "x" } },
    undefined,
    { signal: controller.signal },
  );
  while (requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  controller.abort();
  await assert.rejects(pending);
  await cancel;
  assert.equal(requests.length, 2);
  assert.deepEqual(requests[1], {
    id: `${requests[0].id}-cancel`,
    action: "cancel",
    target: requests[0].id,
  });
});

Deno.test("mcp: a call with a progress token hears notifications/progress while its server starts, all before its answer", async () => {
  await using ws = await copyWorkspace();
  const scratch = await Deno.makeTempDir({ prefix: "lspgate_mcp_progress_" });
  // deno lsp, held at its start (nothing it says is passed on) until the gate file exists: the
  // test opens it once it has heard that the server is starting. Without progress the start
  // never ends, and the call fails at the start timeout.
  const gate = join(scratch, "gate");
  const command = spyCommand(join(scratch, "log"), [Deno.execPath(), "lsp"], { holdUntil: gate });
  const session = await Session.open({
    root: ws.root,
    role: "main",
    allowMutations: false,
    adapters: ADAPTERS,
    config: { ...defaultConfig(), servers: { deno: { command } } },
  });
  try {
    await using client = await connect(session);
    // A notification for a token the client no longer knows (one sent after the answer) is an
    // error the SDK reports here.
    const errors: Error[] = [];
    client.onerror = (error: Error) => errors.push(error);
    const heard: { progress: number; message?: string }[] = [];
    const onprogress = (update: { progress: number; message?: string }) => {
      heard.push(update);
      if (update.message === "deno: starting") Deno.writeTextFileSync(gate, "");
    };
    const result = await client.callTool(
      {
        name: TOOL_NAME,
        arguments: { action: "definition", file: "src/main.ts", line: 2, symbol: "greet" },
      },
      undefined,
      { onprogress },
    );
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.match(JSON.stringify(result.content), /1 definition of `greet`/);
    assert.equal(heard[0]?.message, "deno: starting", JSON.stringify(heard));
    // MCP: progress increases with each notification.
    for (let i = 1; i < heard.length; i++) {
      assert.ok(heard[i].progress > heard[i - 1].progress, JSON.stringify(heard));
    }
    // A round trip after the answer: a notification sent late for the first call has arrived
    // by the second's answer.
    const plain = await call(client, {
      action: "hover",
      file: "src/main.ts",
      line: 2,
      symbol: "greet",
    });
    assert.equal(plain.isError, false, plain.text);
    assert.deepEqual(errors, []);
  } finally {
    await session.close();
    await Deno.remove(scratch, { recursive: true });
  }
});

Deno.test("mcp: calls reach the session against the real deno lsp", async (t) => {
  await using ws = await copyWorkspace();
  const session = await openTestSession(ws.root);
  try {
    await using client = await connect(session);

    await t.step("definition answers with the location and its source", async () => {
      const target = await ws.find("src/greet.ts", "greet(");
      const result = await call(client, {
        action: "definition",
        file: "src/main.ts",
        line: 2,
        symbol: "greet",
      });
      assert.equal(result.isError, false, result.text);
      assert.match(result.text, /^1 definition of `greet` at src\/main\.ts:2:13:/);
      assert.ok(
        result.text.includes(`\nsrc/greet.ts:${target.line}:${target.column}\n`),
        result.text,
      );
      assert.ok(result.text.includes("export function greet(name: string): string {"));
    });

    await t.step("a file outside the workspace is a tool error OUTSIDE_WORKSPACE", async () => {
      const outside = await Deno.makeTempFile({ prefix: "lspgate_outside_", suffix: ".ts" });
      try {
        const result = await call(client, { action: "hover", file: outside, line: 1, column: 1 });
        assert.equal(result.isError, true);
        assert.match(result.text, /^OUTSIDE_WORKSPACE: /);
      } finally {
        await Deno.remove(outside);
      }
    });

    await t.step(
      "details come back as structuredContent, equal to the JSON-lines details",
      async () => {
        const request = { action: "definition", file: "src/main.ts", line: 2, symbol: "greet" };
        const result = await call(client, request);
        const direct = await session.handle({ id: "direct", ...request });
        assert.ok(direct.ok);
        assert.deepEqual(result.structured, direct.details);
        const target = await ws.find("src/greet.ts", "greet(");
        assert.deepEqual((result.structured?.locations as unknown[])[0], {
          file: "src/greet.ts",
          line: target.line,
          column: target.column,
          endLine: target.line,
          endColumn: target.column + "greet".length,
        });
      },
    );

    await t.step("another agent's request shape answers as the canonical one", async () => {
      const canonical = await call(client, {
        action: "definition",
        file: "src/main.ts",
        line: 2,
        column: 13,
      });
      const aliased = await call(client, {
        operation: "goToDefinition",
        filePath: "src/main.ts",
        line: 2,
        character: 13,
      });
      assert.equal(aliased.isError, false, aliased.text);
      assert.equal(aliased.text, canonical.text);
      assert.deepEqual(aliased.structured, canonical.structured);

      const references = await call(client, {
        operation: "findReferences",
        file_path: "src/greet.ts",
        line: 2,
        character: 17,
        includeDeclaration: false,
      });
      assert.equal(references.isError, false, references.text);
      assert.deepEqual(
        (references.structured?.locations as { file: string; line: number }[])
          .map((l) => `${l.file}:${l.line}`),
        ["src/main.ts:1", "src/main.ts:2"],
      );

      // A peer sends its position with every operation; the outline takes none.
      const outline = await call(client, {
        operation: "documentSymbol",
        filePath: "src/greet.ts",
        line: 1,
        character: 1,
      });
      assert.equal(outline.isError, false, outline.text);
      assert.deepEqual(
        (outline.structured?.symbols as { name: string; kind: string }[])
          .map((s) => `${s.kind} ${s.name}`),
        ["function greet"],
      );
    });

    await t.step("after normalisation, an unknown field is still an error result", async () => {
      const result = await call(client, {
        operation: "hover",
        filePath: "src/main.ts",
        line: 2,
        character: 13,
        colour: "blue",
      });
      assert.equal(result.isError, true);
      assert.equal(result.structured, undefined);
      assert.match(result.text, /^INVALID_INPUT: hover: unknown field colour$/);
      const both = await call(client, {
        action: "hover",
        file: "src/main.ts",
        filePath: "src/greet.ts",
        line: 2,
        column: 13,
      });
      assert.equal(both.isError, true);
      assert.match(both.text, /^INVALID_INPUT: .*filePath/);
      const none = await call(client, { filePath: "src/main.ts" });
      assert.equal(none.isError, true);
      assert.match(none.text, /^INVALID_INPUT: the request has no action/);
      const unknown = await call(client, { operation: "teleport", filePath: "src/main.ts" });
      assert.equal(unknown.isError, true);
      assert.match(unknown.text, /^UNKNOWN_ACTION: unknown action `teleport`/);
    });

    await t.step("every kind of answer passes the output schema", async () => {
      const requests: Record<string, unknown>[] = [
        { action: "hover", file: "src/main.ts", line: 2, symbol: "greet" },
        { action: "signature", file: "src/main.ts", line: 2, symbol: "world" },
        { action: "symbols", file: "src/greet.ts" },
        { action: "symbols", file: "*", query: "greet" },
        { action: "diagnostics", file: "src/main.ts" },
        { action: "diagnostics", files: ["src/main.ts", "src/greet.ts"] },
        { action: "references", file: "src/greet.ts", query: "greet" },
        { action: "call_hierarchy", file: "src/greet.ts", query: "greet" },
        { action: "incoming_calls", file: "src/greet.ts", query: "greet" },
        { action: "rename", file: "src/greet.ts", query: "greet", new_name: "welcome" },
        { action: "rename_file", file: "src/greet.ts", new_name: "src/welcome.ts" },
        { action: "format", file: "src/main.ts" },
        { action: "code_actions", file: "src/main.ts", line: 2 },
        { action: "status" },
        { action: "servers" },
        { action: "capabilities", file: "src/main.ts" },
      ];
      for (const request of requests) {
        const result = await call(client, request);
        assert.equal(result.isError, false, `${JSON.stringify(request)}: ${result.text}`);
        assert.equal(typeof result.structured?.sandboxed, "boolean", JSON.stringify(request));
      }
    });

    await t.step("a field the schema lacks reaches the session, which names it", async () => {
      const result = await call(client, {
        action: "hover",
        file: "src/main.ts",
        line: 2,
        column: 13,
        colour: "blue",
      });
      assert.equal(result.isError, true);
      assert.match(result.text, /^INVALID_INPUT: .*colour/);
    });
  } finally {
    await session.close();
  }
});

Deno.test("mcp: details that break the output schema leave the text standing, not an error", async () => {
  const errors: string[] = [];
  const logged = console.error;
  console.error = (text: string) => errors.push(text);
  const session = {
    facts: { role: "main", allowMutations: false, version: "0" },
    handle: (request: Record<string, unknown>) =>
      Promise.resolve({
        id: request.id,
        ok: true,
        content: [{ type: "text", text: "3 results" }],
        details: { total: "three" },
      }),
  } as unknown as Session;
  try {
    await using client = await connect(session);
    const result = await call(client, { action: "status" });
    assert.deepEqual(result, { isError: false, text: "3 results", structured: {} });
  } finally {
    console.error = logged;
  }
  assert.match(errors.join("\n"), /^lspgate: details do not match the MCP output schema: /);
});

Deno.test("mcp: `lspgate mcp` over stdio serves the SDK client and exits 0 when it leaves", async () => {
  await using ws = await copyWorkspace();
  // sh reports lspgate's exit status on stderr, since the SDK transport does not. It ignores the
  // SIGTERM the transport sends when the child has not exited 2 s after stdin closed, so a slow
  // shutdown still shows its status (the SIGKILL 2 s later would cut it short).
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
      "--root",
      ws.root,
    ],
    env: Deno.env.toObject(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const stderrEnded = new Promise((resolve) => transport.stderr?.on("end", resolve));
  const client = new Client({ name: "lspgate-test", version: "0" });
  const protocolErrors: Error[] = [];
  client.onerror = (error: Error) => protocolErrors.push(error);
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, "lspgate");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["lsp"]);
    const result = await call(client, {
      action: "definition",
      file: "src/main.ts",
      line: 2,
      symbol: "greet",
    });
    assert.equal(result.isError, false, result.text);
    const target = await ws.find("src/greet.ts", "greet(");
    assert.ok(result.text.includes(`src/greet.ts:${target.line}:${target.column}`), result.text);
  } finally {
    await client.close();
  }
  await stderrEnded;
  assert.match(stderr, /lspgate exited with 0\n$/, stderr);
  assert.deepEqual(protocolErrors, [], "stdout carried something besides MCP messages");
});
