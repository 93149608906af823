// ContentModified (-32801) is asked again, as editors do (issue 17: rust-analyzer's "content
// modified" was passed on as LSP_ERROR). The fault-injection fake answers hover ContentModified
// twice, then the hover: lspgate answers the hover, and the fake's log shows three asks.
import assert from "node:assert/strict";
import { join } from "node:path";
import { defaultConfig, Session } from "../../mod.ts";
import { expectOk } from "../helpers/session.ts";
import { fakeAdapter, readFakeLog } from "../fakes/fake_server.ts";

Deno.test("a hover answered ContentModified twice is asked again and answered", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_modified_" }));
  const log = await Deno.makeTempFile({ prefix: "lspgate_fake_log_" });
  await Deno.writeTextFile(join(root, "a.fake"), "one two three\n");
  const session = await Session.open({
    root,
    role: "main",
    allowMutations: false,
    adapters: [fakeAdapter("content-modified", { log })],
    config: { ...defaultConfig(), timeoutMs: 5000, startTimeoutMs: 5000 },
  });
  try {
    const answer = expectOk(
      await session.handle({ id: 1, action: "hover", file: "a.fake", line: 1, column: 5 }),
    );
    assert.equal(answer.details.text, "fake hover");
    const hovers = (await readFakeLog(log)).filter((l) => l.method === "textDocument/hover");
    assert.equal(hovers.length, 3);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
    await Deno.remove(log);
  }
});
