// A cancel on the line right after its target cancels it: through the real program in JSON lines,
// with typescript-language-server behind it. The two lines arrive in one write, so the cancel is
// read before the target could have got anywhere (its server has not even started): the target is
// registered before its first await, or the cancel finds nothing. Deterministic, not a race won.
import assert from "node:assert/strict";
import { type Line, Program } from "../helpers/program.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

Deno.test("a cancel on the next line cancels a request still starting its server", async () => {
  const ws = await TempWorkspace.copy("typescript");
  const program = new Program(["--root", ws.root]);
  let finished = false;
  try {
    const call = await ws.within("src/index.ts", "formatPrice(basket", "formatPrice");
    const definition = {
      action: "definition",
      file: "src/index.ts",
      line: call.line,
      column: call.column,
    };
    await program.send({ id: 1, ...definition }, { id: 2, action: "cancel", target: 1 });
    const answers = byId(await program.read(2));
    assert.deepEqual(answers.get(2)?.details, { target: 1, cancelled: true });
    assert.equal(answers.get(2)?.ok, true);
    const cancelled = answers.get(1)!;
    assert.equal(cancelled.ok, false, JSON.stringify(cancelled));
    assert.equal((cancelled.error as { code: string }).code, "CANCELLED");

    // A string id, and the camelCase spelling of a peer agent, cancel the same way.
    await program.send(
      {
        id: "hover-a",
        operation: "hover",
        filePath: "src/index.ts",
        line: call.line,
        character: 3,
      },
      { id: "c", operation: "cancel", target: "hover-a" },
    );
    const again = byId(await program.read(2));
    assert.equal((again.get("hover-a")?.error as { code: string }).code, "CANCELLED");
    assert.equal((again.get("c")?.details as { cancelled: boolean }).cancelled, true);

    // Nothing was broken: the same question, not cancelled, is answered.
    await program.send({ id: 3, ...definition });
    const [answer] = await program.read(1);
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.deepEqual((answer.details as { locations: unknown[] }).locations, [
      await ws.within("src/format.ts", "function formatPrice(", "formatPrice"),
    ]);

    // A cancel for a request already answered finds nothing, and says so.
    await program.send({ id: 4, action: "cancel", target: 3 });
    const [late] = await program.read(1);
    assert.deepEqual(late.details, { target: 3, cancelled: false });

    const end = await program.finish();
    finished = true;
    assert.equal(end.code, 0, end.stderr);
  } finally {
    if (!finished) await program.kill();
    await ws.remove();
  }
});

function byId(lines: Line[]): Map<unknown, Line> {
  return new Map(lines.map((line) => [line.id, line]));
}

Deno.test("through the daemon, a cancel and the request it cancelled name the caller's ids, never the daemon's", async () => {
  const ws = await TempWorkspace.copy("typescript");
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_rt_" }));
  await Deno.chmod(runtime, 0o700);
  const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0" };
  const program = new Program(["--root", ws.root, "--daemon"], env);
  try {
    const call = await ws.within("src/index.ts", "formatPrice(basket", "formatPrice");
    await program.send(
      { id: 5, action: "definition", file: "src/index.ts", line: call.line, column: call.column },
      { id: 6, action: "cancel", target: 5 },
      { id: 7, action: "cancel", target: 777 },
    );
    const answers = byId(await program.read(3));
    assert.deepEqual(answers.get(6)?.details, { target: 5, cancelled: true });
    assert.equal((answers.get(6)?.content as { text: string }[])[0].text, "Cancelled request 5.");
    assert.deepEqual(answers.get(7)?.details, { target: 777, cancelled: false });
    assert.equal(
      (answers.get(7)?.content as { text: string }[])[0].text,
      "No request 777 is in flight.",
    );
    const cancelled = answers.get(5)?.error as { code: string; message: string };
    assert.equal(cancelled.code, "CANCELLED");
    assert.equal(cancelled.message, "request 5 was cancelled");
  } finally {
    await program.finish();
    const stop = new Program(["--root", ws.root, "daemon", "stop"], env);
    await stop.finish();
    await ws.remove();
    await Deno.remove(runtime, { recursive: true });
  }
});
