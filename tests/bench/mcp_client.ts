// A minimal MCP client for the benchmark: `lspgate mcp` in its own process (the `deno task start`
// flags, `--sandbox none`), newline-delimited JSON-RPC on stdio, the `lsp` tool called per query.
import { endProcess, START_RUN } from "./lspgate_process.ts";

/** What tools/call returns, as much as the benchmark reads. */
export interface ToolResult {
  isError?: boolean;
  content?: { type: string; text: string }[];
}

const encoder = new TextEncoder();

/** A running `lspgate mcp` process, initialized. */
export class McpProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  #nextId = 1;
  readonly #done: Promise<void>;

  private constructor(mod: string, root: string) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: [
        ...START_RUN,
        mod,
        "mcp",
        "--root",
        root,
        "--sandbox",
        "none",
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#done = this.#read();
  }

  /** Starts `lspgate mcp` on `root` and completes the MCP handshake. */
  static async start(mod: string, root: string): Promise<McpProcess> {
    const mcp = new McpProcess(mod, root);
    await mcp.#rpc("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "lspgate-bench", version: "0" },
    });
    await mcp.#send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return mcp;
  }

  /** Calls the `lsp` tool with `args`. */
  async call(args: Record<string, unknown>): Promise<ToolResult> {
    return await this.#rpc("tools/call", { name: "lsp", arguments: args }) as ToolResult;
  }

  /** EOF on stdin; waits for the process to end. */
  close(): Promise<void> {
    return endProcess(this.#writer, this.#child, this.#done);
  }

  async #rpc(method: string, params: unknown): Promise<unknown> {
    const id = this.#nextId++;
    const answer = new Promise<{ result?: unknown; error?: unknown }>((resolve) =>
      this.#pending.set(id, resolve)
    );
    await this.#send({ jsonrpc: "2.0", id, method, params });
    const message = await answer;
    if (message.error) throw new Error(`${method}: ${JSON.stringify(message.error)}`);
    return message.result;
  }

  async #send(message: unknown): Promise<void> {
    await this.#writer.write(encoder.encode(JSON.stringify(message) + "\n"));
  }

  async #read() {
    let buffer = "";
    for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        if (typeof message.id === "number" && this.#pending.has(message.id)) {
          this.#pending.get(message.id)!(message);
          this.#pending.delete(message.id);
        }
      }
    }
  }
}
