// Real language servers started under bubblewrap (wrapCommand) answer initialize and shut down:
// what each needs bound (its runtime, its packages) is found and given, and nothing else.
import assert from "node:assert/strict";
import { type SandboxSpec, wrapCommand } from "./sandbox.ts";
import {
  dirname,
  NO_BWRAP,
  npmPackageDir,
  requireBwrap,
  tempDir,
  whichSync,
} from "./sandbox_fixture.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Just enough LSP over stdio to initialize and shut down a server. */
class MiniClient {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer = new Uint8Array(0);
  #stderr: Promise<string>;

  constructor(command: string[]) {
    this.#child = new Deno.Command(command[0], {
      args: command.slice(1),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reader = this.#child.stdout.getReader();
    this.#stderr = new Response(this.#child.stderr).text();
  }

  async send(message: Record<string, unknown>): Promise<void> {
    const body = encoder.encode(JSON.stringify({ jsonrpc: "2.0", ...message }));
    await this.#writer.write(encoder.encode(`Content-Length: ${body.length}\r\n\r\n`));
    await this.#writer.write(body);
  }

  /** Sends a request and waits for its response, answering server requests with null. */
  async request(id: number, method: string, params: unknown): Promise<Record<string, unknown>> {
    await this.send({ id, method, params });
    while (true) {
      const message = await this.#next();
      if (message.id === id && !("method" in message)) return message;
      if ("method" in message && "id" in message) await this.send({ id: message.id, result: null });
    }
  }

  async #next(): Promise<Record<string, unknown>> {
    while (true) {
      const end = indexOfHeaderEnd(this.#buffer);
      if (end >= 0) {
        const header = decoder.decode(this.#buffer.subarray(0, end));
        const length = Number(header.match(/Content-Length: *(\d+)/i)?.[1]);
        if (this.#buffer.length >= end + 4 + length) {
          const body = this.#buffer.subarray(end + 4, end + 4 + length);
          this.#buffer = this.#buffer.slice(end + 4 + length);
          return JSON.parse(decoder.decode(body));
        }
      }
      const { value, done } = await this.#reader.read();
      if (done) throw new Error(`server closed stdout; stderr:\n${await this.#stderr}`);
      const joined = new Uint8Array(this.#buffer.length + value.length);
      joined.set(this.#buffer);
      joined.set(value, this.#buffer.length);
      this.#buffer = joined;
    }
  }

  /** shutdown, exit, and the exit status. */
  async close(): Promise<Deno.CommandStatus> {
    await this.request(999, "shutdown", null);
    await this.send({ method: "exit" });
    await this.#writer.close();
    await this.#reader.cancel();
    await this.#stderr;
    return await this.#child.status;
  }

  async kill(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await this.#writer.close().catch(() => {});
    await this.#reader.cancel().catch(() => {});
    await this.#stderr;
    await this.#child.status;
  }

  stderr(): Promise<string> {
    return this.#stderr;
  }
}

/** The LSP position (UTF-16, which equals code points for this ASCII text) of `needle`. */
function positionOf(text: string, needle: string): { line: number; character: number } {
  const before = text.slice(0, text.indexOf(needle)).split("\n");
  return { line: before.length - 1, character: before.at(-1)!.length };
}

function indexOfHeaderEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

/** Starts `command` sandboxed over a fresh workspace, initializes it, checks capabilities, shuts down. */
async function initializeUnderSandbox(
  command: string[],
  spec: Omit<SandboxSpec, "workspace" | "workspaceWritable"> & {
    initializationOptions?: unknown;
  },
  languageId: string,
  files: Record<string, string>,
): Promise<Record<string, unknown>> {
  await requireBwrap();
  const workspace = await tempDir("lspgate-ws-");
  let client: MiniClient | undefined;
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${workspace}/${name}`, text);
    }
    const { initializationOptions, ...paths } = spec;
    const wrapped = await wrapCommand(command, { workspace, workspaceWritable: false, ...paths });
    client = new MiniClient(wrapped.command);
    const rootUri = `file://${workspace}`;
    const timeout = setTimeout(() => client?.kill(), 60_000);
    try {
      const response = await client.request(1, "initialize", {
        // The server cannot see our PID from its namespace; pyright exits if given one.
        processId: null,
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: "ws" }],
        capabilities: {},
        initializationOptions,
      });
      assert.equal(response.error, undefined, JSON.stringify(response.error));
      const result = response.result as { capabilities?: Record<string, unknown> };
      assert.equal(typeof result.capabilities, "object", JSON.stringify(response));
      await client.send({ method: "initialized", params: {} });
      // Prove the server really works in there: it reads the file and answers hover.
      const [name, text] = Object.entries(files)[0];
      const uri = `${rootUri}/${name}`;
      await client.send({
        method: "textDocument/didOpen",
        params: { textDocument: { uri, languageId, version: 1, text } },
      });
      const hover = await client.request(2, "textDocument/hover", {
        textDocument: { uri },
        position: positionOf(text, "greet"),
      });
      assert.match(JSON.stringify(hover.result), /greet/, JSON.stringify(hover));
      const status = await client.close();
      client = undefined;
      assert.equal(status.code, 0, "server did not exit cleanly after shutdown/exit");
      return result.capabilities!;
    } finally {
      clearTimeout(timeout);
    }
  } finally {
    await client?.kill();
    await Deno.remove(workspace, { recursive: true });
  }
}

Deno.test({
  name: "pyright-langserver initializes under bwrap with its npm folder and node read-only",
  ignore: NO_BWRAP,
  async fn() {
    const capabilities = await initializeUnderSandbox(
      // By its real path, as lspgate runs it: a PATH folder of links (a tools folder's
      // node_modules/.bin) is not bound, so bwrap could not find the program by name there.
      [Deno.realPathSync(whichSync("pyright-langserver")), "--stdio"],
      {
        readOnlyPaths: [
          npmPackageDir("pyright-langserver", "pyright"),
          dirname(Deno.realPathSync(whichSync("node"))),
        ],
      },
      "python",
      { "main.py": "def greet(name: str) -> str:\n    return name\n" },
    );
    assert.ok(capabilities.definitionProvider, JSON.stringify(capabilities));
  },
});

Deno.test({
  name:
    "typescript-language-server initializes under bwrap with its npm folder and typescript read-only",
  ignore: NO_BWRAP,
  async fn() {
    const capabilities = await initializeUnderSandbox(
      [Deno.realPathSync(whichSync("typescript-language-server")), "--stdio"],
      {
        readOnlyPaths: [
          npmPackageDir("typescript-language-server", "typescript-language-server"),
          `${
            dirname(npmPackageDir("typescript-language-server", "typescript-language-server"))
          }/typescript`,
          dirname(Deno.realPathSync(whichSync("node"))),
        ],
      },
      "typescript",
      { "main.ts": "export const greet = (name: string) => name;\n" },
    );
    assert.ok(capabilities.definitionProvider, JSON.stringify(capabilities));
  },
});

Deno.test({
  name: "deno lsp initializes under bwrap with its binary folder read-only and DENO_DIR writable",
  ignore: NO_BWRAP,
  async fn() {
    const denoDir = await tempDir("lspgate-deno-dir-");
    try {
      const capabilities = await initializeUnderSandbox(
        // This Deno, wherever it is (npx puts it in npm's cache, not on PATH).
        [Deno.execPath(), "lsp"],
        {
          readOnlyPaths: [dirname(Deno.realPathSync(Deno.execPath()))],
          writablePaths: [denoDir],
          env: { DENO_DIR: denoDir },
          initializationOptions: { enable: true },
        },
        "typescript",
        { "main.ts": "export const greet = (name: string) => name;\n", "deno.json": "{}\n" },
      );
      assert.ok(capabilities.definitionProvider, JSON.stringify(capabilities));
    } finally {
      await Deno.remove(denoDir, { recursive: true });
    }
  },
});
