// A workspace symbol search leaves unstarted the servers whose files cannot hold a match (issue 17:
// on jansson, a C library, a search for `json_loads` started bash-language-server and pyright for
// its scripts and doc/conf.py), and the answers stay complete: against the real clangd,
// bash-language-server and pyright on the C fixture with a shell script, a `.inc` file (which
// bash-language-server indexes and lspgate's walk does not list) and a Sphinx-like conf.py.
import assert from "node:assert/strict";
import { expectOk, openSession, textOf } from "../helpers/session.ts";
import type { SymbolView } from "../helpers/expect.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const DEPLOY = "scripts/deploy.sh";
const COMMON = "scripts/common.inc";
const CONF = "doc/conf.py";

async function workspace(): Promise<TempWorkspace> {
  const ws = await TempWorkspace.copy("c");
  await Deno.mkdir(ws.path("scripts"));
  await Deno.mkdir(ws.path("doc"));
  // The C function's name is in no word of these: a comment spells its parts apart.
  await ws.write(
    DEPLOY,
    '#!/usr/bin/env bash\n# add counts, then publish\npublish_release() {\n  echo "$1"\n}\n',
  );
  await ws.write(COMMON, 'rotate_logs() {\n  : > "$1"\n}\n');
  await ws.write(CONF, "project = 'counts'\n\n\ndef setup_docs(app):\n    return app\n");
  return ws;
}

type Session = Awaited<ReturnType<typeof openSession>>;
let id = 1;

async function search(session: Session, query: string) {
  const answer = expectOk(await session.handle({ id: id++, action: "symbols", file: "*", query }));
  const hits = (answer.details.symbols as SymbolView[]).filter((s) => s.name === query)
    .map((s) => ({ file: s.file, line: s.line, column: s.column }));
  return { hits, details: answer.details, text: textOf(answer) };
}

/** The servers started so far, by adapter id. */
async function started(session: Session): Promise<string[]> {
  const answer = expectOk(await session.handle({ id: id++, action: "servers" }));
  return (answer.details.servers as { server: string }[]).map((s) => s.server).sort();
}

Deno.test("a C name is searched by clangd alone; a shell or Python name still starts its server", async (t) => {
  await using ws = await workspace();
  const session = await openSession(ws.root, { role: "subagent" });
  try {
    await t.step(
      "add_counts: clangd's answer, complete, bash and pyright not started",
      async () => {
        const want = await ws.within("src/counts.c", "int add_counts(", "add_counts");
        const found = await search(session, "add_counts");
        assert.deepEqual(found.hits, [{ file: want.file, line: want.line, column: want.column }]);
        assert.equal(found.details.partial, false, found.text);
        assert.deepEqual(found.details.notStarted, ["pyright (.)", "bash (.)"], found.text);
        assert.deepEqual(await started(session), ["clangd"]);
      },
    );

    await t.step("rotate_logs, only in a .inc file: bash-language-server finds it", async () => {
      const want = await ws.within(COMMON, "rotate_logs()", "rotate_logs");
      const found = await search(session, "rotate_logs");
      assert.deepEqual(found.hits, [{ file: want.file, line: want.line, column: want.column }]);
      assert.equal(found.details.partial, false, found.text);
      assert.deepEqual(found.details.notStarted, ["pyright (.)"], found.text);
      assert.deepEqual(await started(session), ["bash", "clangd"]);
    });

    await t.step("publish_release and setup_docs: their servers answer", async () => {
      const shell = await search(session, "publish_release");
      const inShell = await ws.within(DEPLOY, "publish_release()", "publish_release");
      assert.deepEqual(shell.hits, [{ file: DEPLOY, line: inShell.line, column: inShell.column }]);
      assert.equal(shell.details.partial, false, shell.text);
      const python = await search(session, "setup_docs");
      const inConf = await ws.within(CONF, "def setup_docs", "setup_docs");
      assert.deepEqual(python.hits, [{ file: CONF, line: inConf.line, column: inConf.column }]);
      assert.equal(python.details.partial, false, python.text);
      assert.equal(python.details.notStarted, undefined, python.text);
      assert.deepEqual(await started(session), ["bash", "clangd", "pyright"]);
    });
  } finally {
    await session.close();
  }
});

Deno.test("a script edited to hold the name is searched again: the words follow the file", async () => {
  await using ws = await workspace();
  const session = await openSession(ws.root, { role: "subagent" });
  try {
    const before = await search(session, "tally_up");
    assert.deepEqual(before.hits, [], before.text);
    assert.deepEqual(before.details.notStarted, ["pyright (.)", "bash (.)"], before.text);
    await ws.write(DEPLOY, (await ws.read(DEPLOY)) + "tally_up() {\n  :\n}\n");
    const want = await ws.within(DEPLOY, "tally_up()", "tally_up");
    const after = await search(session, "tally_up");
    assert.deepEqual(after.hits, [{ file: DEPLOY, line: want.line, column: want.column }]);
    assert.equal(after.details.partial, false, after.text);
  } finally {
    await session.close();
  }
});
