import assert from "node:assert/strict";
import { isWatched } from "../servers/watched.ts";
import { isSideName, sideName } from "./temp_names.ts";

Deno.test("sideName() makes hidden names no server claims, and only those are side names", () => {
  const tmp = sideName("main.ts", "tmp");
  const orig = sideName("x".repeat(255), "orig");
  assert.match(tmp, /^\.main\.ts\.lspgate-[0-9a-f-]{36}\.tmp$/);
  assert.ok(new TextEncoder().encode(orig).length < 255);
  assert.ok(isSideName(tmp) && isSideName(orig));
  assert.ok(!isSideName("main.ts") && !isSideName(".main.ts.lspgate-1.tmp"));
  assert.ok(!isSideName(`${tmp}.ts`));
});

Deno.test("the watcher passes over an apply's side files, not the files beside them", () => {
  assert.equal(isWatched("/ws", `/ws/src/${sideName("a.ts", "tmp")}`), false);
  assert.equal(isWatched("/ws", `/ws/src/${sideName("a.ts", "orig")}`), false);
  assert.equal(isWatched("/ws", "/ws/src/a.ts"), true);
});
