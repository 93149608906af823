// A server fault that leaves it broken until it restarts (pyright's "this._token.cancel is not a
// function": a helper saw every later references fail so) stops the server; the answer says so,
// and the next question is answered by a new one. The fault-injection fake plays that fault.
import assert from "node:assert/strict";
import { expectError, expectOk } from "../helpers/session.ts";
import { readFakeLog } from "../fakes/fake_server.ts";
import { fakeSession } from "../fakes/fake_session.ts";
import { PYRIGHT_WEDGED } from "../../adapters/pyright.ts";

Deno.test("a server answering a fault that breaks it is stopped, and the next references are answered by a new one", async () => {
  const { session, log, close } = await fakeSession("wedged-once", { wedgedBy: PYRIGHT_WEDGED });
  const references = { action: "references", file: "a.fake", line: 1, column: 5 };
  try {
    const message = expectError(await session.handle({ id: 1, ...references }), "LSP_ERROR");
    assert.match(message, /_token\.cancel is not a function/);
    assert.match(message, /lspgate stopped it, and the next question starts it again/);
    const answer = expectOk(await session.handle({ id: 2, ...references }));
    assert.equal(answer.details.total, 1);
    const status = expectOk(await session.handle({ id: 3, action: "status" }));
    const [fake] = status.details.servers as { restarts: number; pid: number }[];
    assert.equal(fake.restarts, 1);
    const starts = (await readFakeLog(log)).filter((l) => l.method === "start");
    assert.equal(new Set(starts.map((l) => l.pid)).size, 2);
  } finally {
    await close();
  }
});
