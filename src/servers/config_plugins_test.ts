import assert from "node:assert/strict";
import { join } from "node:path";
import { pluginConfigAbove } from "./config_plugins.ts";

Deno.test("pluginConfigAbove() finds a config on the way to a file inside a heavy folder, and none elsewhere", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_config_above_" }));
  try {
    const write = async (rel: string, text: string) => {
      await Deno.mkdir(join(root, rel, ".."), { recursive: true });
      await Deno.writeTextFile(join(root, rel), text);
    };
    await write(".cache/ui/svelte.config.js", "export default {};\n");
    await write(".cache/ui/App.svelte", "<h1>x</h1>\n");
    await write(".cache/lint/deno.json", `{'lint': {'plugins': ['./p.ts']}}\n`);
    await write(".cache/lint/a.ts", "export const a = 1;\n");
    await write(".cache/plain/deno.json", '{"lint": {"rules": {}}}\n');
    await write(".cache/plain/a.ts", "export const a = 1;\n");
    // Outside the heavy folders the walk at start has seen every config: nothing is looked up.
    await write("src/svelte.config.js", "export default {};\n");
    await write("src/App.svelte", "<h1>x</h1>\n");
    const above = (file: string, server: "deno" | "svelte") =>
      pluginConfigAbove(root, join(root, file), server);
    assert.equal(await above(".cache/ui/App.svelte", "svelte"), ".cache/ui/svelte.config.js");
    // Single quotes: Deno reads them, so the config counts (its plugins cannot be ruled out).
    assert.equal(await above(".cache/lint/a.ts", "deno"), ".cache/lint/deno.json");
    assert.equal(await above(".cache/plain/a.ts", "deno"), undefined);
    assert.equal(await above("src/App.svelte", "svelte"), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
