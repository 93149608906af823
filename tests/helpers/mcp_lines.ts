// MCP spoken line by line to `lspgate mcp …`, below any SDK client: what a test needs to send a
// message the SDK would not (an oversize one) or to read answers as they come.
import assert from "node:assert/strict";
import { spawnLines } from "./line_process.ts";

/** Starts `command ARGS` (an `lspgate mcp`): spawnLines(), and introduce() (initialize). */
export function spawnMcp(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env: Record<string, string>; stderr?: "piped" | "null" },
) {
  const lines = spawnLines(command, args, options);
  return {
    ...lines,
    /** initialize (answered) and notifications/initialized, as every MCP client begins. */
    async introduce() {
      await lines.send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "lspgate-test", version: "0" },
        },
      });
      assert.equal((await lines.next()).id, 1);
      await lines.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    },
  };
}
