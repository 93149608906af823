// A server fault that leaves it broken until it restarts (pyright's "this._token.cancel is not a
// function": a helper saw every later references fail so) stops the server,
// and the question is asked once more of a new one. The fault-injection fake plays that fault.
import assert from "node:assert/strict";
import { expectOk } from "../helpers/session.ts";
import { readFakeLog } from "../fakes/fake_server.ts";
import { fakeSession } from "../fakes/fake_session.ts";
import { PYRIGHT_WEDGED } from "../../adapters/pyright.ts";

Deno.test("a server answering a fault that breaks it is stopped, and the question is answered by a new one", async () => {
  const { session, log, close } = await fakeSession("wedged-once", { wedgedBy: PYRIGHT_WEDGED });
  const references = { action: "references", file: "a.fake", line: 1, column: 5 };
  try {
    // Asked once more of a new server: the answer, not the fault (the fault said "ask again").
    const first = expectOk(await session.handle({ id: 1, ...references }));
    assert.equal(first.details.total, 1);
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
