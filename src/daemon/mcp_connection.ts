// The `lsp` tool served by the daemon over one client's connection (`lspgate mcp --daemon`): the
// client relays its MCP lines both ways and nothing more, so the MCP SDK (and the zod and ajv it
// loads, ~28 MiB resident) is loaded once, here, not in every agent session's client.
import type { SessionFacts } from "../actions/types.ts";
import type { McpGate } from "../frontends/mcp.ts";
import type { Response } from "../session.ts";
import { VERSION } from "../version.ts";
import type { ConnectionHandler } from "./server.ts";

const READ_SIZE = 64 * 1024;

/** Serves MCP on `conn` (past its hello) through `connection`, until either side ends it. */
export async function serveMcpConnection(
  conn: Deno.Conn,
  connection: ConnectionHandler,
): Promise<void> {
  const { serveMcp } = await import("../frontends/mcp.ts");
  const granted = connection.granted;
  const facts: SessionFacts = {
    role: granted.role as SessionFacts["role"],
    allowMutations: granted.allowMutations === true,
    sandbox: granted.sandboxed ? "yes (in the daemon)" : "no: servers are NOT confined",
    sandboxed: granted.sandboxed === true,
    trustedRoots: [],
    startedAt: Date.now(),
    version: VERSION,
  };
  const gate: McpGate = {
    facts,
    handle: (raw) => connection.handle(raw, () => {}) as Promise<Response>,
    // The connection's own requests carry their progress flag: its handler samples the servers.
    request: (raw, progress) => connection.handle(raw, progress) as Promise<Response>,
    close: () => Promise.resolve(),
  };
  // Loaded here, not at the top: a bundle hoists every static `node:` import to its start.
  const { Readable, Writable } = await import("node:stream");
  const stdin = Readable.from(chunksOf(conn));
  const stdout = new Writable({
    write(chunk: Uint8Array, _encoding, done) {
      writeAll(conn, chunk).then(() => done(), (error) => done(error));
    },
  });
  await serveMcp(gate, { stdin, stdout });
}

async function* chunksOf(conn: Deno.Conn): AsyncGenerator<Uint8Array> {
  const buffer = new Uint8Array(READ_SIZE);
  try {
    let n: number | null;
    while ((n = await conn.read(buffer)) !== null) yield buffer.slice(0, n);
  } catch {
    // The client went away mid-read: the end of its input.
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}
