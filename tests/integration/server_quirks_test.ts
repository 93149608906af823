// Server quirks handled by name (issue 17), against the real servers: clangd answers a hierarchy
// method it advertises with MethodNotFound (clangd 14: outgoing calls and type hierarchy), which
// becomes "not supported by clangd <version>" and `capabilities` says so afterwards, or, where the
// installed clangd has them, each call site is listed once (clangd lists each outgoing site twice).
// pyright's callers read as names (`main.py`, not `(module) main.py`; no `(greeting.py)` detail)
// and one getattr call is listed once, not once per typeshed overload. Places by text match.
import assert from "node:assert/strict";
import { harness, textOf } from "../helpers/session.ts";

interface Call {
  name: string;
  file: string;
  line: number;
  detail?: string;
  callSites: { line: number; column: number }[];
}

/** The version number `clangd --version` prints (e.g. "14.0.6"). */
async function clangdVersion(): Promise<string> {
  const out = await new Deno.Command("clangd", { args: ["--version"], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).match(/version (\d+\.\d+(?:\.\d+)?)/)![1];
}

Deno.test("clangd: an advertised hierarchy method it refuses is 'not supported by clangd <version>'; calls it has are listed once", async () => {
  const version = await clangdVersion();
  const h = await harness("c");
  try {
    const sum = await h.ws.within("src/counts.c", "int point_sum", "point_sum");
    const addCall = await h.ws.within("src/counts.c", "return add_counts(p.x", "add_counts");
    const mainCall = await h.ws.within("src/main.c", "total + point_sum", "point_sum");

    const outgoing = await h.ok({
      action: "outgoing_calls",
      file: "src/counts.c",
      query: "point_sum",
    });
    const types = await h.ok({ action: "supertypes", file: "src/counts.c", query: "point_sum" });
    const capabilities = await h.ok({ action: "capabilities", file: "src/counts.c" });
    const actions = capabilities.details.actions as Record<string, boolean>;
    if (outgoing.details.supported === false) {
      assert.match(
        textOf(outgoing),
        new RegExp(`^outgoing_calls is not supported by clangd ${version.replaceAll(".", "\\.")} `),
      );
      assert.equal(actions.outgoing_calls, false);
      assert.match(textOf(capabilities), /outgoing_calls.*answered MethodNotFound/);
    } else {
      // A clangd with outgoing calls: add_counts, its one call site once.
      const calls = outgoing.details.calls as Call[];
      assert.deepEqual(
        calls.map((c) => [c.name, c.callSites.map((s) => [s.line, s.column])]),
        [["add_counts", [[addCall.line, addCall.column]]]],
      );
      assert.equal(actions.outgoing_calls, true);
    }
    if (types.details.supported === false) {
      assert.match(
        textOf(types),
        new RegExp(`not supported by clangd ${version.replaceAll(".", "\\.")}`),
      );
      assert.equal(actions.supertypes, false);
    } else {
      assert.deepEqual(types.details.types, []);
    }

    // call_hierarchy shows the callers either way, and says what it lacks.
    const both = await h.ok({ action: "call_hierarchy", file: "src/counts.c", query: "point_sum" });
    const incoming = both.details.incoming as Call[];
    assert.deepEqual(
      incoming.map((c) => [c.name, c.file, c.callSites.map((s) => [s.line, s.column])]),
      [["main", "src/main.c", [[mainCall.line, mainCall.column]]]],
    );
    assert.equal((both.details.item as { line: number }).line, sum.line);
    if (outgoing.details.supported === false) {
      assert.equal(both.details.outgoingSupported, false);
      assert.match(textOf(both), /Outgoing calls are not supported by clangd/);
    }
  } finally {
    await h.close();
  }
});

Deno.test("pyright: callers read as names, and one call to an overloaded function is listed once", async () => {
  const h = await harness("python");
  try {
    const file = "zoo/calls.py";
    await h.ws.write(
      file,
      'def helper(x: object) -> str:\n    return getattr(x, "name", "") + str(getattr(x, "size", 0))\n',
    );
    const first = await h.ws.locate(file, 'getattr(x, "name"');
    const second = await h.ws.locate(file, 'getattr(x, "size"');
    const outgoing = await h.ok({ action: "outgoing_calls", file, query: "helper" });
    const calls = outgoing.details.calls as Call[];
    const getattrs = calls.filter((c) => c.name === "getattr");
    assert.equal(getattrs.length, 1, textOf(outgoing));
    assert.deepEqual(getattrs[0].callSites.map((s) => [s.line, s.column]), [
      [first.line, first.column],
      [second.line, second.column],
    ]);
    assert.equal(getattrs[0].detail, "Standard library");
    assert.doesNotMatch(textOf(outgoing), /\(\(/);

    const callSite = await h.ws.within("main.py", "message = greet(", "greet");
    const incoming = await h.ok({
      action: "incoming_calls",
      file: "zoo/greeting.py",
      query: "greet",
    });
    const callers = incoming.details.calls as Call[];
    const main = callers.find((c) => c.file === "main.py");
    assert.equal(main?.name, "main.py");
    assert.deepEqual(main?.callSites, [{ line: callSite.line, column: callSite.column }]);
    const report = callers.find((c) => c.file === "zoo/report.py");
    assert.equal(report?.name, "report");
    assert.equal(report?.detail, undefined, JSON.stringify(report));
    assert.doesNotMatch(textOf(incoming), /\(\(|\(module\)/);
  } finally {
    await h.close();
  }
});
