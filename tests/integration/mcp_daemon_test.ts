// `lspgate mcp --daemon` as a relay: the daemon serves the `lsp` tool on each client's connection,
// and the client only passes lines. Run as deno.json's start task runs it (its grant, not -A),
// real deno lsp on copies of the deno fixture, one private runtime folder (one daemon) for all.
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { REPO_ROOT } from "../helpers/program.ts";
import { runToEnd } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

interface ToolResult {
  isError?: boolean;
  content: { text: string }[];
  structuredContent?: Record<string, unknown>;
}

/** A private runtime folder (so one daemon of its own), and the start task's command line. */
async function runtimeFolder() {
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_mcpd_" }));
  await Deno.chmod(runtime, 0o700);
  const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0", NO_COLOR: "1" };
  const start = (root: string, ...args: string[]) =>
    [Deno.execPath(), "task", "--quiet", "start", ...args, "--root", root] as const;
  const daemonPid = async (root: string) => {
    const [command, ...args] = start(root, "daemon", "status");
    const out = await runToEnd(command, args, { cwd: REPO_ROOT, env });
    return (JSON.parse(out.stdout) as { pid?: number }).pid;
  };
  const cleanup = async (root: string) => {
    const [command, ...args] = start(root, "daemon", "stop");
    await runToEnd(command, args, { cwd: REPO_ROOT, env });
    await Deno.remove(runtime, { recursive: true });
  };
  return { env, start, daemonPid, cleanup };
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

Deno.test("MCP --daemon: a message past 10 MiB is answered under its id by the daemon, and the relay serves on", async () => {
  const ws = await TempWorkspace.copy("deno");
  const rt = await runtimeFolder();
  const [command, ...args] = rt.start(ws.root, "mcp", "--daemon");
  const child = new Deno.Command(command, {
    args,
    cwd: REPO_ROOT,
    env: rt.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const next = async (): Promise<Record<string, unknown>> => {
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("the relay ended");
      buffered += value;
    }
    const line = buffered.slice(0, buffered.indexOf("\n"));
    buffered = buffered.slice(buffered.indexOf("\n") + 1);
    return JSON.parse(line);
  };
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  try {
    await send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "0" },
      },
    });
    assert.equal((await next()).id, 1);
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const huge = "x".repeat(10.5 * 1024 * 1024);
    await send({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "lsp", arguments: { action: "status", note: huge } },
    });
    const refused = await next();
    assert.equal(refused.id, 7);
    assert.equal((refused.error as { code: number }).code, -32600);
    await send({ jsonrpc: "2.0", id: 8, method: "tools/list" });
    const listed = await next();
    assert.equal(listed.id, 8);
    assert.deepEqual(
      (listed.result as { tools: { name: string }[] }).tools.map((t) => t.name),
      ["lsp"],
    );
  } finally {
    await writer.close();
    await lines.cancel();
    await child.status;
    await rt.cleanup(ws.root);
    await ws.remove();
  }
});

Deno.test("the MCP --daemon relay loads no MCP SDK: neither it nor the CLI entry imports an npm package", async () => {
  for (const entry of ["src/frontends/mcp_forward.ts", "src/frontends/main.ts"]) {
    const out = await runToEnd(Deno.execPath(), ["info", "--json", entry], { cwd: REPO_ROOT });
    assert.equal(out.code, 0, out.stderr);
    const graph = JSON.parse(out.stdout) as {
      roots: string[];
      modules: {
        specifier: string;
        dependencies?: { code?: { specifier?: string }; isDynamic?: boolean }[];
      }[];
    };
    const byName = new Map(graph.modules.map((m) => [m.specifier, m]));
    const loaded = new Set<string>();
    const stack = [...graph.roots];
    while (stack.length) {
      const name = stack.pop()!;
      if (loaded.has(name)) continue;
      loaded.add(name);
      for (const dependency of byName.get(name)?.dependencies ?? []) {
        if (!dependency.isDynamic && dependency.code?.specifier) {
          stack.push(dependency.code.specifier);
        }
      }
    }
    assert.ok(loaded.size > 10, `the graph of ${entry} was read: ${[...loaded]}`);
    const npm = [...loaded].filter((name) => name.startsWith("npm:"));
    assert.deepEqual(npm, [], `${entry} loads npm packages`);
    assert.ok(![...loaded].some((name) => name.endsWith("/src/frontends/mcp.ts")), entry);
  }
});
