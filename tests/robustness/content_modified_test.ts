// ContentModified (-32801) is asked again, as editors do (issue 17: rust-analyzer's "content
// modified" was passed on as LSP_ERROR). The fault-injection fake answers hover ContentModified
// twice, then the hover: lspgate answers the hover, and the fake's log shows three asks.
import assert from "node:assert/strict";
import { expectOk } from "../helpers/session.ts";
import { readFakeLog } from "../fakes/fake_server.ts";
import { fakeSession } from "../fakes/fake_session.ts";

Deno.test("a hover answered ContentModified twice is asked again and answered", async () => {
  const { session, log, close } = await fakeSession("content-modified");
  try {
    const answer = expectOk(
      await session.handle({ id: 1, action: "hover", file: "a.fake", line: 1, column: 5 }),
    );
    assert.equal(answer.details.text, "fake hover");
    const hovers = (await readFakeLog(log)).filter((l) => l.method === "textDocument/hover");
    assert.equal(hovers.length, 3);
  } finally {
    await close();
  }
});
