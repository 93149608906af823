// `lspgate mcp --daemon`: the agent's MCP lines relayed to the daemon, which serves the `lsp` tool
// on this connection (src/daemon/mcp_connection.ts), and its lines relayed back.
//
// Rationale: an agent runs one MCP client per session, for as long as the session lasts. Serving
// MCP here loaded the MCP SDK (with zod and ajv, ~28 MiB resident) into every one of them; relaying
// lines needs none of it, and the daemon loads it once for all. What the relay keeps is what a
// daemon that goes away would lose: the agent's `initialize` (given again to a new daemon, its
// answer not passed on) and the requests in flight (answered SERVER_EXITED, as served here).
import { toLspGateError } from "../errors.ts";
import type { DaemonConnection } from "../daemon/client.ts";
import type { Hello } from "../daemon/server.ts";
import { attachOrStart, type DaemonTarget, NO_DAEMON_HERE } from "../daemon/start.ts";
import { LineWriter, readLines } from "./lines.ts";
import { onStopSignal } from "./signals.ts";

/** The longest line relayed, in characters; the daemon answers one past the MCP limit in bytes. */
const MAX_LINE_CHARS = 16 * 1024 * 1024;

const LOST = "SERVER_EXITED: the lspgate daemon went away before answering; ask again (a new " +
  "one starts)";

/** A JSON-RPC message as far as the relay reads it. */
interface Envelope {
  id?: string | number | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/**
 * Relays MCP between stdin/stdout and this user's daemon until stdin ends and what was asked is
 * answered; 0 then. Undefined when
 * no daemon can be used here (said on stderr): the caller serves MCP in this process instead.
 */
export async function forwardMcp(target: DaemonTarget, hello: Hello): Promise<number | undefined> {
  const ask = { ...hello, mcp: true };
  const connect = async () => {
    try {
      const attached = await attachOrStart(target, ask);
      if (!attached || attached.granted.mcp === true) return attached;
      // A daemon of an earlier lspgate, which serves no MCP: this process serves it instead.
      attached.close();
      return "the daemon running (an earlier lspgate's) serves no MCP";
    } catch (error) {
      const e = toLspGateError(error);
      return `the daemon could not be used (${e.code}: ${e.message})`;
    }
  };
  const first = await connect();
  if (!first || typeof first === "string") {
    console.error(
      `lspgate: ${first ?? NO_DAEMON_HERE}; serving in-process`,
    );
    return undefined;
  }
  let connection: DaemonConnection = first;
  const out = new LineWriter(Deno.stdout);
  /** The agent's requests the daemon has not answered, by id (as JSON), with their method. */
  const inFlight = new Map<string, string>();
  let initialize: Envelope | undefined;
  let initialized: string | undefined;
  let replays = 0;
  const replayed = new Set<string>();
  /** Called once nothing is in flight, after stdin ended. */
  let drained: (() => void) | undefined;
  const settle = () => {
    if (inFlight.size === 0) drained?.();
  };

  const answerLost = () => {
    for (const [key, method] of inFlight) {
      const id = JSON.parse(key);
      // A tool call's failure is the tool's answer, as when MCP is served in this process.
      out.write(JSON.stringify(
        method === "tools/call"
          ? {
            jsonrpc: "2.0",
            id,
            result: { content: [{ type: "text", text: LOST }], isError: true },
          }
          : { jsonrpc: "2.0", id, error: { code: -32603, message: LOST } },
      ));
    }
    inFlight.clear();
    settle();
  };
  const use = (fresh: DaemonConnection) => {
    fresh.relayLines((line) => {
      const message = envelopeOf(line);
      if (message && message.method === undefined && message.id !== undefined) {
        const key = JSON.stringify(message.id);
        // The answer to an initialize given again for the agent: it has had its own.
        if (replayed.delete(key)) return;
        inFlight.delete(key);
        out.write(line);
        settle();
        return;
      }
      out.write(line);
    });
    fresh.closed().then(() => {
      if (fresh === connection) answerLost();
    });
  };
  use(connection);

  const stop = () => connection?.close();
  const unlisten = onStopSignal(() => {
    stop();
    Deno.exit(0);
  });
  try {
    for await (const line of readLines(Deno.stdin, MAX_LINE_CHARS)) {
      if (typeof line !== "string") {
        // Not kept, only followed for its id: answered under that (or none, if it has none).
        out.write(JSON.stringify({
          jsonrpc: "2.0",
          id: line.id ?? null,
          error: {
            code: -32600,
            message: `Invalid Request: the message is ${line.tooLong} characters, more than the ` +
              `${MAX_LINE_CHARS} (16 MiB) a line may be; it was not read. Send less.`,
          },
        }));
        continue;
      }
      const text = line;
      if (text.trim() === "") continue;
      const message = envelopeOf(text);
      const isRequest = message?.method !== undefined && message.id !== undefined &&
        message.id !== null;
      if (message?.method === "initialize") initialize = message;
      if (message?.method === "notifications/initialized") initialized = text;
      if (!connection.open) {
        const fresh = await connect();
        if (typeof fresh === "string") console.error(`lspgate: ${fresh}`);
        if (fresh && typeof fresh !== "string") {
          connection = fresh;
          use(fresh);
          // A new daemon knows nothing of this agent: it is introduced as it was the first time.
          if (initialize && message?.method !== "initialize") {
            const id = `lspgate-reintroduce-${++replays}`;
            replayed.add(JSON.stringify(id));
            await fresh.sendLine(JSON.stringify({ ...initialize, id }));
            if (initialized) await fresh.sendLine(initialized);
          }
        }
      }
      if (isRequest) inFlight.set(JSON.stringify(message.id), message.method!);
      // A cancelled request gets no answer (MCP's rule): none is waited for.
      if (message?.method === "notifications/cancelled") {
        inFlight.delete(JSON.stringify((message.params as { requestId?: unknown })?.requestId));
      }
      await connection.sendLine(text);
      // Sent to a daemon already gone: answered now, as one it was in flight with.
      if (!connection.open) answerLost();
    }
    // stdin ended: the calls already sent are answered first, as when MCP is served here.
    await new Promise<void>((resolve) => {
      drained = resolve;
      settle();
    });
  } finally {
    unlisten();
    stop();
    await out.close();
  }
  return 0;
}

function envelopeOf(line: string): Envelope | undefined {
  try {
    const value = JSON.parse(line);
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
