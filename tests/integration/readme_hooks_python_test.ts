// The README's Claude Code hooks on a Python project, run as the README gives them (its install,
// its hook commands through `sh -c`, the daemon): the session's start starts pyright. A helper's
// find: the warm-up's symbol search for "lspgate-warm-up" left pyright unstarted (no Python file
// held those letters in order), so the first edit's hook met a cold server and gave up.
import assert from "node:assert/strict";
import { until } from "../helpers/daemon.ts";
import { readmeWorkspace } from "../helpers/readme_grant.ts";

Deno.test("the README's SessionStart hook on a Python project starts pyright in the daemon", async () => {
  const rg = await readmeWorkspace("python");
  try {
    // As click's sdist: no pyproject.toml or pyrightconfig.json, so the word index decides.
    await Deno.remove(`${rg.ws.root}/pyproject.toml`);
    const start = await rg.hook("SessionStart", {
      session_id: `s-${crypto.randomUUID()}`,
      hook_event_name: "SessionStart",
      source: "startup",
    });
    assert.deepEqual(start, { code: 0, stdout: "", stderr: "" });
    await until(
      async () =>
        (await rg.status()).servers.some((s) =>
          s.server.startsWith("pyright@") && s.state === "running"
        ),
      "the session's start has pyright started in the daemon",
    );
  } finally {
    await rg.cleanup();
  }
});
