import assert from "node:assert/strict";
import { join } from "node:path";
import { configSchema } from "./config_schema.ts";
import { defaultsWithoutSchema, userConfigToRead } from "./config_source.ts";

Deno.test("the defaults written out for a start without the schema are the schema's own", () => {
  assert.deepEqual(defaultsWithoutSchema(), configSchema.parse({}));
  // A fresh object each time: a caller that sets config.servers changes no other's.
  assert.notEqual(defaultsWithoutSchema().servers, defaultsWithoutSchema().servers);
});

/** Runs `body` with HOME, XDG_CONFIG_HOME and CLAUDE_CONFIG_DIR pointing into `home`. */
async function withHome(body: (home: string) => Promise<void>): Promise<void> {
  const home = await Deno.makeTempDir();
  const saved = ["HOME", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR"].map((n) => [n, Deno.env.get(n)]);
  Deno.env.set("HOME", home);
  Deno.env.delete("XDG_CONFIG_HOME");
  Deno.env.delete("CLAUDE_CONFIG_DIR");
  try {
    await body(home);
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) Deno.env.delete(name!);
      else Deno.env.set(name!, value);
    }
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("the config is read when --config, a user config or Claude Code's plugin list is there", async () => {
  await withHome(async (home) => {
    assert.equal(userConfigToRead(undefined), false);
    assert.equal(userConfigToRead(join(home, "missing.jsonc")), true);

    await Deno.mkdir(join(home, ".claude", "plugins"), { recursive: true });
    await Deno.writeTextFile(join(home, ".claude", "plugins", "installed_plugins.json"), "{}");
    assert.equal(userConfigToRead(undefined), true);
    await Deno.remove(join(home, ".claude"), { recursive: true });

    await Deno.mkdir(join(home, ".config", "lspgate"), { recursive: true });
    await Deno.writeTextFile(join(home, ".config", "lspgate", "config.jsonc"), "{}");
    assert.equal(userConfigToRead(undefined), true);
  });
});
