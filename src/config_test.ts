import assert from "node:assert/strict";
import { defaultConfig, loadConfig } from "./config.ts";

Deno.test("loadConfig() reads JSONC with comments and trailing commas, defaults the rest", async () => {
  const file = await Deno.makeTempFile({ suffix: ".jsonc" });
  try {
    await Deno.writeTextFile(
      file,
      `{\n // sandbox the servers\n "sandbox": "bwrap",\n "servers": {"deno": {"disabled": true}},\n}`,
    );
    const config = await loadConfig(file);
    assert.equal(config.sandbox, "bwrap");
    assert.equal(config.servers.deno.disabled, true);
    assert.equal(config.timeoutMs, defaultConfig().timeoutMs);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("loadConfig() names the file and the key for a wrong value or an unknown key", async () => {
  const file = await Deno.makeTempFile({ suffix: ".jsonc" });
  try {
    await Deno.writeTextFile(file, `{"timeoutMs": "soon", "colour": 1}`);
    await assert.rejects(loadConfig(file), (error: Error & { code?: string }) => {
      assert.equal(error.code, "INVALID_INPUT");
      assert.match(error.message, /timeoutMs/);
      assert.match(error.message, /colour/);
      return true;
    });
  } finally {
    await Deno.remove(file);
  }
});
