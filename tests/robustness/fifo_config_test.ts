// A repository whose config file is a FIFO (pyrightconfig.json, biome.json): the server would
// block reading it for good, and every question answered TIMEOUT after 15 s (a helper's find).
// The server is not started, and the answer names the file at once. Real pyright and Biome.
import assert from "node:assert/strict";
import { join } from "node:path";
import { openSession } from "../helpers/session.ts";

Deno.test("a FIFO pyrightconfig.json or biome.json: the server is not started, and the answer says why at once", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_fifo_config_" }));
  try {
    for (const fifo of ["pyrightconfig.json", "biome.json"]) {
      const made = await new Deno.Command("mkfifo", { args: [join(root, fifo)] }).output();
      assert.equal(made.code, 0);
    }
    await Deno.writeTextFile(join(root, "a.py"), 'x: int = "s"\n');
    await Deno.writeTextFile(join(root, "b.js"), "console.log(1);\n");
    const session = await openSession(root);
    try {
      const python = await session.handle({ id: 1, action: "diagnostics", file: "a.py" });
      const js = await session.handle({ id: 2, action: "diagnostics", file: "b.js" });
      const said = JSON.stringify([python, js]);
      assert.match(said, /pyright is not started: its config pyrightconfig\.json is a FIFO/);
      assert.match(said, /biome is not started: its config biome\.json is a FIFO/);
      assert.doesNotMatch(said, /TIMEOUT|timed out/);
    } finally {
      await session.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
