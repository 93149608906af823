// A method a server advertises and answers MethodNotFound (clangd 14's call and type hierarchy,
// issue 17) is "not supported" as an answer, not LSP_ERROR, and `capabilities` says so after. The
// fault-injection fake advertises hover and refuses it; the server is asked only once.
import assert from "node:assert/strict";
import { expectOk } from "../helpers/session.ts";
import { readFakeLog } from "../fakes/fake_server.ts";
import { fakeSession } from "../fakes/fake_session.ts";

Deno.test("an advertised hover answered MethodNotFound is 'not supported', and capabilities says so", async () => {
  const { session, log, close } = await fakeSession("refuse-hover");
  try {
    const hover = { action: "hover", file: "a.fake", line: 1, column: 5 };
    const before = expectOk(
      await session.handle({ id: 1, action: "capabilities", file: "a.fake" }),
    );
    assert.equal((before.details.actions as Record<string, boolean>).hover, true);
    for (const id of [2, 3]) {
      const answer = expectOk(await session.handle({ id, ...hover }));
      assert.equal(answer.details.supported, false);
      assert.match(
        answer.content[0].text,
        /^hover is not supported by fake 1\.0\.0 \(it advertises textDocument\/hover but answers MethodNotFound\)/,
      );
    }
    const after = expectOk(await session.handle({ id: 4, action: "capabilities", file: "a.fake" }));
    assert.equal((after.details.actions as Record<string, boolean>).hover, false);
    assert.match(
      after.content[0].text,
      /hover: advertised, but fake 1\.0\.0 answered MethodNotFound/,
    );
    const asked = (await readFakeLog(log)).filter((l) => l.method === "textDocument/hover");
    assert.equal(asked.length, 1, "asked once; the second hover knew");
  } finally {
    await close();
  }
});
