// Every seed dialect means what its own schema says (issue 17), against the real
// typescript-language-server, over JSON lines (the program, as `deno task start` runs it) and MCP
// (the SDK client, in memory and through the real `lspgate mcp` process on stdio): ExAthena's
// action + file + line + character is 0-based in and out; Claude Code's and OpenCode's operation +
// filePath + line + character 1-based, and OpenCode's workspaceSymbol (no query) lists the
// workspace's symbols; oh-my-pi's occurrence picks the N-th match on the line, its timeout is
// seconds, reload restarts, diagnostics and symbols without file are the workspace's, and a
// code_actions query may be the action's number; devkit-pi's column and files[] work. Places are
// found by text match.
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer, TOOL_NAME } from "../../src/frontends/mcp.ts";
import { join } from "node:path";
import { Program, REPO_ROOT } from "../helpers/program.ts";
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

  await t.step("oh-my-pi: code_actions query may be the action's number in the list", async () => {
    // A misspelt call: its quick fix is a known edit at a known place.
    const file = "src/typo.ts";
    await ws.write(file, 'import { total } from "./cart.ts";\nexport const n = totl([]);\n');
    const typo = await ws.within(file, "n = totl", "totl");
    const listed = await ask({ action: "code_actions", file, line: typo.line });
    assert.ok(listed.ok, JSON.stringify(listed));
    const titles = (listed.details.actions as { index: number; title: string }[])
      .map((a) => a.title);
    const fix = titles.indexOf("Change spelling to 'total'") + 1;
    assert.ok(fix >= 1, JSON.stringify(titles));
    // The number matches no title as text: only the list's numbering can pick it.
    assert.ok(!titles.some((title) => title.includes(String(fix))), JSON.stringify(titles));
    const preview = await ask({ action: "code_actions", file, line: typo.line, query: `${fix}` });
    assert.ok(preview.ok, JSON.stringify(preview));
    assert.equal(preview.details.action, "Change spelling to 'total'");
    assert.equal(preview.details.applied, false);
    const changes = preview.details.changes as {
      file: string;
      edits: {
        line: number;
        column: number;
        endLine: number;
        endColumn: number;
        newText: string;
      }[];
    }[];
    assert.deepEqual(changes.map((c) => c.file), [file]);
    const [edit] = changes[0].edits;
    assert.deepEqual(
      [edit.line, edit.column, edit.endLine, edit.endColumn, edit.newText],
      [typo.line, typo.column, typo.line, typo.column + "totl".length, "total"],
    );
    // Another number is another action, never this one.
    if (titles.length > 1) {
      const other = fix === 1 ? 2 : 1;
      const picked = await ask({
        action: "code_actions",
        file,
        line: typo.line,
        query: `${other}`,
      });
      // Previewed, or refused as a server command: named either way.
      assert.ok(picked.text.includes(`\`${titles[other - 1]}\``), JSON.stringify(picked));
      assert.notEqual(picked.details.action, "Change spelling to 'total'");
    }
    const applied = await ask({
      action: "code_actions",
      file,
      line: typo.line,
      query: `${fix}`,
      apply: true,
      edit_hash: preview.details.edit_hash,
    });
    assert.ok(applied.ok, JSON.stringify(applied));
    assert.equal(applied.details.applied, true);
    assert.equal(
      await ws.read(file),
      'import { total } from "./cart.ts";\nexport const n = total([]);\n',
    );
    await Deno.remove(ws.path(file));
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

/** Asks through an MCP client: the tool's text, isError, and structuredContent as details. */
function mcpAsk(client: Client): Ask {
  return async (request) => {
    const result = await client.callTool({ name: TOOL_NAME, arguments: request });
    const content = result.content as { text: string }[];
    return {
      ok: result.isError !== true,
      text: content.map((c) => c.text).join("\n"),
      details: (result.structuredContent ?? {}) as Record<string, unknown>,
    };
  };
}

Deno.test("dialects over MCP: each seed's example requests answer about the place its schema means", async (t) => {
  await using ws = await TempWorkspace.copy("typescript");
  await ws.write(USES, USES_TS);
  const session = await openSession(ws.root, { allowMutations: true });
  const server = createMcpServer(session);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "lspgate-test", version: "0" });
  await client.connect(clientSide);
  try {
    await dialectChecks(t, ws, mcpAsk(client));
  } finally {
    await client.close();
    await server.close();
    await session.close();
  }
});

Deno.test("dialects over the real `lspgate mcp` process on stdio, as deno task start:mutations runs it", async (t) => {
  await using ws = await TempWorkspace.copy("typescript");
  await ws.write(USES, USES_TS);
  const { tasks } = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  const transport = new StdioClientTransport({
    command: "sh",
    args: ["-c", `exec ${tasks["start:mutations"]} mcp --root '${ws.root}'`],
    cwd: REPO_ROOT,
    env: { ...Deno.env.toObject(), NO_COLOR: "1" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "lspgate-test", version: "0" });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, "lspgate");
    await dialectChecks(t, ws, mcpAsk(client));
  } catch (error) {
    console.error(stderr);
    throw error;
  } finally {
    await client.close();
  }
});
