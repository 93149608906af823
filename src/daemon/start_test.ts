// attachOrStart() gives up on a daemon that ended without serving, instead of waiting out its 15 s
// start timeout: the client then serves in-process at once. Here the started "daemon" is this test
// file run as a program (Deno.mainModule), which ends as soon as it starts.
import assert from "node:assert/strict";
import { attachOrStart } from "./start.ts";
import type { LspGateConfig } from "../config_schema.ts";

Deno.test("attachOrStart(): a daemon that ends without serving is not waited for (undefined, well before the start timeout)", async () => {
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_ended_" }));
  const root = await Deno.makeTempDir({ prefix: "lspgate_ended_root_" });
  const before = Deno.env.get("XDG_RUNTIME_DIR");
  Deno.env.set("XDG_RUNTIME_DIR", runtime);
  try {
    const target = { root, config: {} as LspGateConfig, sandbox: "none", trust: false };
    const hello = { role: "main" as const, allowMutations: false, client: "test" };
    const started = Date.now();
    assert.equal(await attachOrStart(target, hello), undefined);
    // The start timeout is 15 s; a daemon's end is noticed within its next 50 ms poll.
    const waited = Date.now() - started;
    assert.ok(waited < 10_000, `waited ${waited} ms for a daemon that had ended`);
  } finally {
    if (before === undefined) Deno.env.delete("XDG_RUNTIME_DIR");
    else Deno.env.set("XDG_RUNTIME_DIR", before);
    await Deno.remove(runtime, { recursive: true });
    await Deno.remove(root, { recursive: true });
  }
});
