import assert from "node:assert/strict";
import { V8_FLAGS_ARG } from "./v8_flags.ts";
import { daemonCommand } from "./daemon/start.ts";
import { defaultConfig } from "./config.ts";

const checkout = new URL("../", import.meta.url);

Deno.test("deno task start and start:mutations run lspgate with its V8 flags", async () => {
  const { tasks } = JSON.parse(await Deno.readTextFile(new URL("deno.json", checkout)));
  for (const name of ["start", "start:mutations"]) {
    assert.ok(
      (tasks[name] as string).split(" ").includes(V8_FLAGS_ARG),
      `deno.json's ${name} task lacks ${V8_FLAGS_ARG}: ${tasks[name]}`,
    );
  }
});

Deno.test("every command line in the README passes lspgate's V8 flags as they are", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", checkout));
  const given = readme.match(/--v8-flags=[^\s`]+/g) ?? [];
  // deno task start, the bundle and deno compile.
  assert.ok(given.length >= 3, `the README names the V8 flags ${given.length} times`);
  for (const flags of given) assert.equal(flags, V8_FLAGS_ARG);
});

Deno.test("the daemon, the longest-lived lspgate process, is started with lspgate's V8 flags", async () => {
  const root = await Deno.makeTempDir({ prefix: "lspgate_v8_" });
  const runtime = await Deno.makeTempDir({ prefix: "lspgate_v8_rt_" });
  const before = Deno.env.get("XDG_RUNTIME_DIR");
  Deno.env.set("XDG_RUNTIME_DIR", runtime);
  try {
    const args = await daemonCommand({
      root,
      config: defaultConfig(),
      sandbox: "none",
      trust: false,
    });
    assert.ok(args, "a process with --allow-all can start a daemon");
    assert.ok(
      args.indexOf(V8_FLAGS_ARG) > -1 && args.indexOf(V8_FLAGS_ARG) < args.indexOf("daemon"),
    );
  } finally {
    if (before === undefined) Deno.env.delete("XDG_RUNTIME_DIR");
    else Deno.env.set("XDG_RUNTIME_DIR", before);
    await Deno.remove(root, { recursive: true });
    await Deno.remove(runtime, { recursive: true });
  }
});
