// Every seed dialect means what its own schema says (issue 17), against the real
// typescript-language-server, over JSON lines (the program, as `deno task start` runs it) and MCP
// (the SDK client): ExAthena's action + file + line + character is 0-based in and out; Claude
// Code's and OpenCode's operation + filePath + line + character 1-based, and OpenCode's
// workspaceSymbol (no query) lists the workspace's symbols; oh-my-pi's occurrence picks the N-th
// match on the line, its timeout is seconds, reload restarts, diagnostics and symbols without file
// are the workspace's; devkit-pi's column and files[] work. Places are found by text match.
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer, TOOL_NAME } from "../../src/frontends/mcp.ts";
import { Program } from "../helpers/program.ts";
import { openSession } from "../helpers/session.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const USES = "src/uses.ts";
const USES_TS = `import { formatPrice } from "./format.ts";
import { summary, total } from "./cart.ts";

export const a = total([]), b = total([]);
export const label = formatPrice(a + b) + summary([]);
`;

/** An answer as both transports give it: ok, text, details (or the error). */
interface Answer {
  ok: boolean;
  text: string;
  details: Record<string, unknown>;
  code?: string;
}

type Ask = (request: Record<string, unknown>) => Promise<Answer>;

interface Where {
  line: number;
  column: number;
}

/** The checks, run once per transport. */
async function dialectChecks(t: Deno.TestContext, ws: TempWorkspace, ask: Ask) {
  const call = await ws.within(USES, "formatPrice(a + b)", "formatPrice");
  const target = await ws.within("src/format.ts", "function formatPrice", "formatPrice");
  const secondTotal = await ws.within(USES, "b = total", "total");
  const firstOf = (answer: Answer) => (answer.details.locations as Where[])[0];

  await t.step("ExAthena: line and character 0-based, in and out", async () => {
    const answer = await ask({
      action: "definition",
      file: USES,
      line: call.line - 1,
      character: call.column - 1,
    });
    assert.ok(answer.ok, JSON.stringify(answer));
    const first = firstOf(answer);
    assert.deepEqual([first.line, first.column], [target.line - 1, target.column - 1]);
    assert.match(
      answer.text,
      new RegExp(`src/format\\.ts:${target.line - 1}:${target.column - 1}`),
    );
    assert.match(answer.text, /ExAthena/);
    assert.deepEqual(answer.details.reading, { dialect: "exathena", positions: "0-based" });
  });

  await t.step("Claude Code / OpenCode: operation + filePath + character, 1-based", async () => {
    const answer = await ask({
      operation: "goToDefinition",
      filePath: USES,
      line: call.line,
      character: call.column,
    });
    assert.ok(answer.ok, JSON.stringify(answer));
    const first = firstOf(answer);
    assert.deepEqual([first.line, first.column], [target.line, target.column]);
    assert.equal(answer.details.reading, undefined);
  });

  await t.step(
    "OpenCode: workspaceSymbol without a query lists the workspace's symbols",
    async () => {
      const answer = await ask({
        operation: "workspaceSymbol",
        filePath: USES,
        line: 1,
        character: 1,
      });
      assert.ok(answer.ok, JSON.stringify(answer));
      const names = (answer.details.symbols as { name: string }[]).map((s) => s.name);
      for (const name of ["formatPrice", "total", "summary"]) assert.ok(names.includes(name), name);
      assert.ok((answer.details.symbols as unknown[]).length <= 200);
    },
  );

  await t.step("oh-my-pi: occurrence picks the N-th match on the line", async () => {
    const answer = await ask({
      action: "hover",
      file: USES,
      line: secondTotal.line,
      symbol: "total",
      occurrence: 2,
    });
    assert.ok(answer.ok, JSON.stringify(answer));
    const range = answer.details.range as Where;
    assert.deepEqual([range.line, range.column], [secondTotal.line, secondTotal.column]);
  });

  await t.step("oh-my-pi: timeout is seconds (5 is five seconds, not five ms)", async () => {
    await ask({ action: "restart" });
    // A cold server: its first hover takes far longer than 5 ms.
    const answer = await ask({
      action: "hover",
      file: "src/format.ts",
      line: target.line,
      symbol: "formatPrice",
      timeout: 5,
    });
    assert.ok(answer.ok, JSON.stringify(answer));
    assert.equal((answer.details.reading as { timeout: string }).timeout, "seconds");
    assert.match(answer.text, /timeout 5 read as seconds/);
    const ms = await ask({
      action: "hover",
      file: "src/format.ts",
      line: target.line,
      symbol: "formatPrice",
      timeout_ms: 20_000,
    });
    assert.ok(ms.ok, JSON.stringify(ms));
    assert.equal((ms.details.reading as { timeout: string }).timeout, "milliseconds");
  });

  await t.step("oh-my-pi: reload restarts the servers", async () => {
    const answer = await ask({ action: "reload" });
    assert.ok(answer.ok, JSON.stringify(answer));
    assert.ok(Array.isArray(answer.details.restarted));
  });

  await t.step("oh-my-pi: symbols with query and no file search the workspace", async () => {
    const answer = await ask({ action: "symbols", query: "formatPrice" });
    assert.ok(answer.ok, JSON.stringify(answer));
    const found = (answer.details.symbols as { name: string; file: string; line: number }[])
      .find((s) => s.name === "formatPrice");
    assert.deepEqual([found?.file, found?.line], ["src/format.ts", target.line]);
  });

  await t.step("oh-my-pi: diagnostics without file check the workspace", async () => {
    await ws.write("src/broken.ts", "export const n: number = 'text';\n");
    const answer = await ask({ action: "diagnostics" });
    assert.ok(answer.ok, JSON.stringify(answer));
    const files = answer.details.files as { file: string; diagnostics: unknown[] }[];
    const broken = files.find((f) => f.file === "src/broken.ts");
    assert.equal(broken?.diagnostics.length, 1, JSON.stringify(files));
    await Deno.remove(ws.path("src/broken.ts"));
  });

  await t.step("devkit-pi: column 1-based; workspace-diagnostics with files[]", async () => {
    const answer = await ask({
      action: "definition",
      file: USES,
      line: call.line,
      column: call.column,
    });
    assert.ok(answer.ok, JSON.stringify(answer));
    const first = firstOf(answer);
    assert.deepEqual([first.line, first.column], [target.line, target.column]);
    const diagnostics = await ask({
      action: "workspace-diagnostics",
      files: [USES, "src/format.ts"],
      severity: "all",
    });
    assert.ok(diagnostics.ok, JSON.stringify(diagnostics));
    const files = (diagnostics.details.files as { file: string }[]).map((f) => f.file).sort();
    assert.deepEqual(files, ["src/format.ts", USES]);
  });
}

Deno.test("dialects over JSON lines: each seed's example requests answer about the place its schema means", async (t) => {
  await using ws = await TempWorkspace.copy("typescript");
  await ws.write(USES, USES_TS);
  const program = new Program(["--root", ws.root, "--allow-mutations"]);
  let id = 0;
  const ask: Ask = async (request) => {
    await program.send({ id: ++id, ...request });
    const [line] = await program.read(1);
    const content = line.content as { text: string }[] | undefined;
    const error = line.error as { code: string; message: string } | undefined;
    return {
      ok: line.ok === true,
      text: content?.map((c) => c.text).join("\n") ?? error?.message ?? "",
      details: (line.details ?? {}) as Record<string, unknown>,
      code: error?.code,
    };
  };
  try {
    await dialectChecks(t, ws, ask);
    assert.equal((await program.finish()).code, 0);
  } catch (error) {
    await program.kill();
    throw error;
  }
});

Deno.test("dialects over MCP: each seed's example requests answer about the place its schema means", async (t) => {
  await using ws = await TempWorkspace.copy("typescript");
  await ws.write(USES, USES_TS);
  const session = await openSession(ws.root, { allowMutations: true });
  const server = createMcpServer(session);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "lspgate-test", version: "0" });
  await client.connect(clientSide);
  const ask: Ask = async (request) => {
    const result = await client.callTool({ name: TOOL_NAME, arguments: request });
    const content = result.content as { text: string }[];
    return {
      ok: result.isError !== true,
      text: content.map((c) => c.text).join("\n"),
      details: (result.structuredContent ?? {}) as Record<string, unknown>,
    };
  };
  try {
    await dialectChecks(t, ws, ask);
  } finally {
    await client.close();
    await server.close();
    await session.close();
  }
});
