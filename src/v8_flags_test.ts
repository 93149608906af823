import assert from "node:assert/strict";
import { V8_FLAGS_ARG } from "./v8_flags.ts";
import { daemonCommand } from "./daemon/start.ts";
import { defaultConfig } from "./config.ts";
import { launcherArgs } from "./lsp/sandbox/landlock.ts";
import { inotifyWatchArgs } from "./servers/inotify_process.ts";

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

Deno.test("the Landlock launcher and the watcher process run lspgate's module with its V8 flags", () => {
  // V8 takes a script's code cache only from a run with the same flags: a child run of the bundle
  // without them compiled it whole again and left a cache lspgate's next start could not use.
  for (const args of [launcherArgs("/lib/libc.so.6"), inotifyWatchArgs("/lib/libc.so.6")]) {
    const script = args.findIndex((arg) => arg.endsWith(".ts") || arg.endsWith(".js"));
    assert.ok(script > 0, args.join(" "));
    assert.ok(args.slice(0, script).includes(V8_FLAGS_ARG), args.join(" "));
  }
});
