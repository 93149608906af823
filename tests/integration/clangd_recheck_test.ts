// clangd publishes nothing for a didChange with identical text: after another file changed on
// disk, an open document's diagnostics must still come (checked again by reopening it), and be
// about the new state of what it includes.
import assert from "node:assert/strict";
import { expectOk, openSession } from "../helpers/session.ts";
import { TempWorkspace } from "../helpers/workspace.ts";
import { readSpyLog, spyCommand } from "../helpers/lsp_spy.ts";
import { ensureClangd } from "../tools.ts";

interface FileResult {
  file: string;
  status: string;
  diagnostics: { line: number; severity: string }[];
}

Deno.test("clangd: after another file changes, an open file's diagnostics answer (not a timeout), for the new header", async () => {
  const ws = await TempWorkspace.copy("c");
  const session = await openSession(ws.root);
  const ask = async (id: number) => {
    const answer = expectOk(
      await session.handle({
        id,
        action: "diagnostics",
        file: "src/main.c",
        severity: "error",
        timeout: 20_000,
      }),
    );
    return (answer.details.files as FileResult[])[0];
  };
  try {
    assert.deepEqual(await ask(1), { file: "src/main.c", status: "ok", diagnostics: [] });
    // An edit elsewhere that does not change what main.c sees: still clean, and answered.
    await ws.write("src/counts.c", (await ws.read("src/counts.c")) + "\n/* touched */\n");
    assert.deepEqual(await ask(2), { file: "src/main.c", status: "ok", diagnostics: [] });
    // A header main.c includes now declares add_counts with three parameters: main.c is wrong.
    await ws.write(
      "src/counts.h",
      (await ws.read("src/counts.h")).replace(
        /int add_counts\(int left, int right\);/,
        "int add_counts(int left, int right, int extra);",
      ),
    );
    const broken = await ask(3);
    assert.equal(broken.status, "ok");
    const callLine = (await ws.locate("src/main.c", "add_counts(1, 2)")).line;
    assert.deepEqual(broken.diagnostics.map((d) => d.line), [callLine]);
  } finally {
    await session.close();
    await ws.remove();
  }
});

Deno.test("clangd: an edit to another source file does not make an open file be checked again; a header edit does", async () => {
  const ws = await TempWorkspace.copy("c");
  const log = await Deno.makeTempFile({ prefix: "lspgate_spy_", suffix: ".jsonl" });
  const clangd = await ensureClangd();
  const session = await openSession(ws.root, {
    servers: { clangd: { command: spyCommand(log, [clangd]) } },
  });
  const ask = async (id: number) => {
    const answer = expectOk(
      await session.handle({ id, action: "diagnostics", file: "src/main.c", severity: "error" }),
    );
    return (answer.details.files as FileResult[])[0];
  };
  const reopens = async () =>
    (await readSpyLog(log)).filter((m) => m.method === "textDocument/didClose").length;
  try {
    assert.deepEqual(await ask(1), { file: "src/main.c", status: "ok", diagnostics: [] });
    // counts.c is another translation unit: main.c's last answer still holds, no reparse.
    await ws.write("src/counts.c", (await ws.read("src/counts.c")) + "\n/* touched */\n");
    assert.deepEqual(await ask(2), { file: "src/main.c", status: "ok", diagnostics: [] });
    assert.equal(await reopens(), 0);
    // A header main.c includes: checked again (closed and reopened), and now wrong.
    await ws.write(
      "src/counts.h",
      (await ws.read("src/counts.h")).replace(
        /int add_counts\(int left, int right\);/,
        "int add_counts(int left, int right, int extra);",
      ),
    );
    const broken = await ask(3);
    assert.equal(broken.status, "ok");
    assert.deepEqual(broken.diagnostics.map((d) => d.line), [
      (await ws.locate("src/main.c", "add_counts(1, 2)")).line,
    ]);
    assert.equal(await reopens(), 1);
  } finally {
    await session.close();
    await ws.remove();
    await Deno.remove(log);
  }
});
