// The README's Claude Code hooks on a Python project, run as the README gives them (its install,
// its hook commands through `sh -c`, the daemon): the session's start starts pyright. A helper's
// find: the warm-up's symbol search for "lspgate-warm-up" left pyright unstarted (no Python file
// held those letters in order), so the first edit's hook met a cold server and gave up.
import assert from "node:assert/strict";
import { until } from "../helpers/daemon.ts";
import { post, readmeWorkspace } from "../helpers/readme_grant.ts";

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

Deno.test("the README's hook checks the edited file when $XDG_RUNTIME_DIR differs from the one its install expanded", async () => {
  const rg = await readmeWorkspace("python");
  // A new login session's runtime folder: not in the installed script's grant, which still
  // names $TMPDIR's and /tmp's folders (as the install expanded them).
  const other = { XDG_RUNTIME_DIR: await Deno.makeTempDir({ prefix: "lspgate_xdg_" }) };
  try {
    const file = `${rg.ws.root}/zoo/greeting.py`;
    // Warm, as an agent's session is by its first edit: the daemon this environment reaches.
    const warm = await rg.lspgate(["call", "diagnostics", "file=zoo/greeting.py"], other);
    assert.equal(warm.code, 0, warm.stderr);
    await Deno.writeTextFile(file, `${await Deno.readTextFile(file)}\nwrong: int = "x"\n`);
    const out = await rg.hook("PostToolUse", post(`s-${crypto.randomUUID()}`, file), "", other);
    assert.equal(out.code, 2, out.stderr);
    assert.match(out.stderr, /^zoo\/greeting\.py:\d+:\d+ error/m);
  } finally {
    // The daemon that hook started, in the folder it chose the same way.
    await rg.lspgate(["daemon", "stop"], other);
    await rg.cleanup();
    await Deno.remove(other.XDG_RUNTIME_DIR, { recursive: true });
  }
});
