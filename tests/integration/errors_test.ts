// Error codes and the role policy, in process, on the deno fixture. Most of these are refused
// before any language server starts; the role checks run one rename preview through deno lsp.
import assert from "node:assert/strict";
import { harness } from "../helpers/session.ts";

Deno.test("bad requests get the error code that says what is wrong", async (t) => {
  const h = await harness("deno");
  try {
    const { ws } = h;

    await t.step("a path that leaves the root is OUTSIDE_WORKSPACE", async () => {
      const message = await h.fails(
        { action: "definition", file: "../x.ts", line: 1, column: 1 },
        "OUTSIDE_WORKSPACE",
      );
      assert.match(message, /outside the workspace/);
      await h.fails(
        { action: "hover", file: "/etc/hostname", line: 1, column: 1 },
        "OUTSIDE_WORKSPACE",
      );
    });

    await t.step("a symlink inside that points outside is OUTSIDE_WORKSPACE", async () => {
      const outside = await Deno.makeTempFile({ suffix: ".ts" });
      try {
        await Deno.writeTextFile(outside, "export const secret = 1;\n");
        await Deno.symlink(outside, ws.path("src/link.ts"));
        await h.fails(
          { action: "symbols", file: "src/link.ts" },
          "OUTSIDE_WORKSPACE",
        );
      } finally {
        await Deno.remove(ws.path("src/link.ts"));
        await Deno.remove(outside);
      }
    });

    await t.step("a symbol of 40,000 characters is INVALID_INPUT, not INTERNAL", async () => {
      // It made a regular expression too large to compile.
      const message = await h.fails(
        { action: "hover", file: "src/main.ts", line: 1, symbol: "a".repeat(40_000) },
        "INVALID_INPUT",
      );
      assert.match(message, /symbol: Too big: expected string to have <=1000 characters/);
    });

    await t.step("a missing file is FILE_NOT_FOUND", async () => {
      const message = await h.fails(
        { action: "definition", file: "src/missing.ts", line: 1, column: 1 },
        "FILE_NOT_FOUND",
      );
      assert.match(message, /src\/missing\.ts/);
    });

    await t.step("a file type no adapter handles is NO_SERVER", async () => {
      await ws.write("notes.xyz", "greet\n");
      const message = await h.fails(
        { action: "definition", file: "notes.xyz", line: 1, column: 1 },
        "NO_SERVER",
      );
      assert.match(message, /\.xyz/);
      assert.match(message, /deno/);
    });

    await t.step("wrong types and missing fields are INVALID_INPUT", async () => {
      const line = await h.fails(
        { action: "definition", file: "src/main.ts", line: "7", column: 1 },
        "INVALID_INPUT",
      );
      assert.match(line, /line/);
      const column = await h.fails(
        { action: "definition", file: "src/main.ts", line: 1, column: 0 },
        "INVALID_INPUT",
      );
      assert.match(column, /1-based/);
      const position = await h.fails(
        { action: "definition", file: "src/main.ts" },
        "INVALID_INPUT",
      );
      assert.match(position, /position/);
      const unknown = await h.fails(
        { action: "hover", file: "src/main.ts", line: 1, column: 1, colour: "blue" },
        "INVALID_INPUT",
      );
      assert.match(unknown, /colour/);
      await h.fails({ file: "src/main.ts" }, "INVALID_INPUT");
      const notObject = await h.session.handle([1, 2]);
      assert.equal(notObject.ok, false);
      assert.equal(notObject.ok === false && notObject.error.code, "INVALID_INPUT");
    });

    await t.step("a line past the end of the file is INVALID_INPUT, not a crash", async () => {
      const lines = (await ws.read("src/main.ts")).split("\n").length;
      await h.fails(
        { action: "definition", file: "src/main.ts", line: lines + 5, column: 1 },
        "INVALID_INPUT",
      );
    });

    await t.step("an unknown action is UNKNOWN_ACTION listing the known ones", async () => {
      const message = await h.fails(
        { action: "frobnicate", file: "src/main.ts" },
        "UNKNOWN_ACTION",
      );
      assert.match(message, /definition/);
      assert.match(message, /references/);
    });

    await t.step("a field or action named like an Object property is named as sent", async () => {
      const message = await h.fails(
        JSON.parse('{"action":"status","constructor":1}'),
        "INVALID_INPUT",
      );
      assert.equal(message, "status: unknown field constructor");
      const action = await h.fails({ action: "constructor" }, "UNKNOWN_ACTION");
      assert.match(action, /^unknown action `constructor`; one of: /);
      const proto = await h.fails(
        JSON.parse('{"action":"status","__proto__":{}}'),
        "INVALID_INPUT",
      );
      assert.equal(proto, "status: unknown field __proto__");
    });

    await t.step("the id of each request comes back on its answer", async () => {
      const answer = await h.session.handle({ id: "abc", action: "frobnicate" });
      assert.equal(answer.id, "abc");
      const noId = await h.session.handle({ action: "frobnicate" });
      assert.equal(noId.id, null);
    });

    await t.step(
      "role main without --allow-mutations refuses rename apply, naming the flag",
      async () => {
        const before = await ws.read("src/greet.ts");
        const message = await h.fails(
          {
            action: "rename",
            file: "src/greet.ts",
            query: "greet",
            new_name: "welcome",
            apply: true,
          },
          "ACTION_NOT_ALLOWED",
        );
        assert.match(message, /--allow-mutations/);
        assert.equal(await ws.read("src/greet.ts"), before);
      },
    );
  } finally {
    await h.close();
  }
});

Deno.test("role subagent never applies a rename, whatever allowMutations says, but previews it", async () => {
  const h = await harness("deno", { role: "subagent", allowMutations: true });
  try {
    const before = await h.ws.read("src/greet.ts");
    const rename = { action: "rename", file: "src/greet.ts", query: "greet", new_name: "welcome" };
    const message = await h.fails({ ...rename, apply: true }, "ACTION_NOT_ALLOWED");
    assert.match(message, /subagent/);
    const preview = await h.ok(rename);
    assert.equal(preview.details.applied, false);
    assert.equal(preview.details.edits, 6);
    assert.equal(await h.ws.read("src/greet.ts"), before);
    await h.fails({ action: "restart" }, "ACTION_NOT_ALLOWED");
  } finally {
    await h.close();
  }
});
