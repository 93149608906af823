// MCP written all at once and then stdin closed, as `printf … | lspgate mcp` does: what is sent,
// and the check that every call was answered.
import assert from "node:assert/strict";

/**
 * initialize, a definition at `at` in src/main.ts (the first call: it starts the server, so it is
 * answered long after stdin closed), a hover cancelled at once, a call missing its action; no
 * newline after the last line.
 */
export function pipedCalls(at: { line: number; column: number }): Uint8Array {
  const call = (id: number | string, args: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "lsp", arguments: args },
  });
  const lines = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", v: 0 } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    call(2, { action: "definition", file: "src/main.ts", ...at }),
    call("3", { action: "hover", file: "src/main.ts", ...at }),
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "3" } },
    call(4, {}),
  ];
  return new TextEncoder().encode(lines.map((l) => JSON.stringify(l)).join("\n"));
}

/** Asserts the answers of pipedCalls(): 1, 2 and 4, 2 landing in src/greet.ts at `line`. */
export function assertPipedAnswers(stdout: Uint8Array, line: number): void {
  const answers = new TextDecoder().decode(stdout).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 4]);
  const definition = answers.find((a) => a.id === 2).result;
  assert.equal(definition.isError, undefined, definition.content[0].text);
  assert.match(definition.content[0].text, new RegExp(`src/greet\\.ts:${line}:`));
  const empty = answers.find((a) => a.id === 4).result;
  assert.equal(empty.isError, true);
  assert.match(empty.content[0].text, /INVALID_INPUT/);
}
