import type { Session } from "../session.ts";

/** MCP over stdio (not built yet). */
export async function serveMcp(session: Session): Promise<number> {
  await session.close();
  console.error("lspgate mcp: not available yet");
  return 2;
}
