// A hostile repository's special files: a FIFO named like a source file. Opening a FIFO for
// reading blocks until a writer comes, which may be never, so lspgate must refuse it without
// opening it, and a FIFO anywhere in the workspace must not keep lspgate from exiting on EOF.
// These cases run lspgate as a child process with deadlines and kill it if it hangs: a hung
// FIFO open inside the test process would hang the whole test run.
import assert from "node:assert/strict";
import { join } from "node:path";
import { type AttackFixture, withFixture } from "./fixture.ts";
import { LspgateProcess } from "./lspgate_process.ts";

const ANSWER_MS = 5_000;
const EXIT_MS = 10_000;

async function makeFifo(fx: AttackFixture, rel: string): Promise<string> {
  const path = join(fx.root, rel);
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.equal(made.code, 0, "mkfifo failed");
  return path;
}

Deno.test("hostile repo: a FIFO named src/pipe.ts is refused promptly, not opened", () =>
  withFixture(async (fx) => {
    await makeFifo(fx, "src/pipe.ts");
    const lspgate = await LspgateProcess.start(fx);
    try {
      await lspgate.send({ id: 1, action: "hover", file: "src/pipe.ts", line: 1, column: 1 });
      await lspgate.send({ id: 2, action: "diagnostics", file: "src/*.ts" });
      await lspgate.send({ id: 3, action: "diagnostics", files: ["src/pipe.ts"] });
      const glob = await lspgate.answer(2, ANSWER_MS);
      const files = (glob?.details?.files as { file: string }[] | undefined)?.map((f) => f.file);
      assert.deepEqual(files?.sort(), ["src/a.ts", "src/b.ts"], "the glob listed the FIFO");
      const hover = await lspgate.answer(1, ANSWER_MS);
      assert.ok(hover, `hover on a FIFO got no answer within ${ANSWER_MS} ms (stuck opening it)`);
      assert.equal(hover.error?.code, "INVALID_INPUT", JSON.stringify(hover));
      const listed = await lspgate.answer(3, ANSWER_MS);
      assert.ok(listed, `diagnostics files[] with a FIFO got no answer within ${ANSWER_MS} ms`);
    } finally {
      fx.assertNoLeak(await lspgate.stop());
      fx.assertNoLeak(lspgate.lines);
    }
  }));

Deno.test("hostile repo: a FIFO another process opened does not stop lspgate exiting on EOF", () =>
  withFixture(async (fx) => {
    const fifo = await makeFifo(fx, "src/pipe.ts");
    const lspgate = await LspgateProcess.start(fx);
    try {
      await lspgate.send({ id: 1, action: "hover", file: "src/a.ts", line: 1, column: 14 });
      assert.equal((await lspgate.answer(1, ANSWER_MS))?.ok, true, "hover on src/a.ts failed");
      // Another tool (a build, the agent's shell) writes to and reads from the FIFO, which
      // completes by itself; lspgate's workspace watcher sees the events.
      const shell = await new Deno.Command("sh", {
        args: ["-c", `cat "${fifo}" > /dev/null & echo x > "${fifo}"; wait`],
      }).output();
      assert.equal(shell.code, 0);
      // This tree holds links that lead out, so its watcher is lspgate's watcher process, which
      // follows none and opens nothing: the FIFO stalls nothing, and tracking stays exact. (Deno's
      // own watcher stalls on it: src/servers/watcher_test.ts.)
      for (const id of [3, 4, 5]) {
        await lspgate.send({ id, action: "hover", file: "src/a.ts", line: 1, column: 14 });
        assert.equal((await lspgate.answer(id, ANSWER_MS))?.ok, true, "hover after the FIFO use");
      }
      await lspgate.send({ id: 2, action: "status" });
      const status = await lspgate.answer(2, ANSWER_MS);
      assert.equal(status?.ok, true, "status after the FIFO use");
      const watcher = status?.details?.watcher as { runsOn?: string } | undefined;
      assert.equal(watcher?.runsOn, "process", JSON.stringify(status?.details));
      assert.equal(status?.details?.changeTracking, "exact", JSON.stringify(status?.details));
      const exit = await lspgate.endInput(EXIT_MS);
      assert.ok(exit, `lspgate did not exit within ${EXIT_MS} ms of EOF (killed)`);
      assert.equal(exit.code, 0);
    } finally {
      fx.assertNoLeak(await lspgate.stop());
    }
  }));
