// Where a server runs, the syntax tree still resolves `query` and `symbol#N` to exact positions
// without a round trip (issue 12): the real deno lsp behind a spy that logs what lspgate asks it
// shows no textDocument/documentSymbol for a dotted query or symbol#N, and one for a bare name
// (a read sees the candidates a rename sees, issue 17).
import assert from "node:assert/strict";
import { Program } from "../helpers/program.ts";
import { readSpyLog, spyCommand } from "../helpers/lsp_spy.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const DOCUMENT_SYMBOL = "textDocument/documentSymbol";

Deno.test("a dotted query or symbol#N the syntax tree resolves asks the server for no document symbols; a bare name does", async () => {
  await using ws = await TempWorkspace.copy("deno");
  const log = await Deno.makeTempFile({ prefix: "lspgate_spy_", suffix: ".jsonl" });
  const config = await Deno.makeTempFile({ prefix: "lspgate_spy_config_", suffix: ".json" });
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      servers: { deno: { command: spyCommand(log, [Deno.execPath(), "lsp"]) } },
    }),
  );
  // Unsandboxed: the spy's script lives in this checkout, which a sandbox does not show.
  const program = new Program(["--root", ws.root, "--config", config, "--sandbox", "none"]);
  try {
    const ask = async (request: Record<string, unknown>) => {
      await program.send(request);
      const [answer] = await program.read(1);
      assert.equal(answer.ok, true, JSON.stringify(answer));
      return answer.details as { locations?: { file: string; line: number; column: number }[] };
    };
    const greet = await ws.within("src/greet.ts", "function greet(", "greet");
    const describe = await ws.within("src/shapes.ts", "describe(): string", "describe");
    const param = await ws.within("src/greet.ts", "(name) =>", "name");
    const local = await ws.at("src/main.ts", "名前");

    // A query that names one symbol in the outline, dotted or not; an nth occurrence on a line.
    const references = await ask({
      id: 1,
      action: "references",
      file: "src/greet.ts",
      query: "greet",
    });
    assert.ok(
      references.locations?.some((l) =>
        l.file === "src/greet.ts" && l.line === greet.line && l.column === greet.column
      ),
      JSON.stringify(references),
    );
    const definition = await ask({
      id: 2,
      action: "definition",
      file: "src/shapes.ts",
      query: "Circle.describe",
    });
    assert.deepEqual(
      definition.locations?.map((l) => [l.file, l.line, l.column]),
      [["src/shapes.ts", describe.line, describe.column]],
    );
    const nth = await ask({
      id: 3,
      action: "definition",
      file: "src/greet.ts",
      line: param.line,
      symbol: "name#2",
    });
    assert.deepEqual(
      nth.locations?.map((l) => [l.file, l.line, l.column]),
      [["src/greet.ts", param.line, param.column]],
    );
    const wide = await ask({
      id: 4,
      action: "definition",
      file: "src/main.ts",
      line: local.line,
      symbol: "名前#2",
    });
    assert.deepEqual(
      wide.locations?.map((l) => [l.file, l.line, l.column]),
      [["src/main.ts", local.line, local.column]],
    );
    let asked = (await readSpyLog(log)).map((m) => m.method);
    // The spy saw the traffic: every position request reached the server through it.
    assert.equal(asked.filter((m) => m === "textDocument/references").length, 1, asked.join());
    assert.equal(asked.filter((m) => m === "textDocument/definition").length, 3, asked.join());
    // The bare `greet` asked the server (its symbols include locals the outline leaves out, and a
    // read must see the candidates a rename sees, issue 17); the dotted one and symbol#N did not.
    assert.equal(asked.filter((m) => m === DOCUMENT_SYMBOL).length, 1, asked.join());

    // `area` names three symbols: the server is asked again.
    await ask({ id: 5, action: "hover", file: "src/shapes.ts", query: "area" });
    asked = (await readSpyLog(log)).map((m) => m.method);
    assert.equal(asked.filter((m) => m === DOCUMENT_SYMBOL).length, 2, asked.join());
    const { code } = await program.finish();
    assert.equal(code, 0);
  } catch (error) {
    await program.kill();
    throw error;
  } finally {
    await Deno.remove(log);
    await Deno.remove(config);
  }
});
