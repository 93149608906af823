// A daemon of another lspgate version (one running from before an upgrade): a client does not
// let it answer (it would serve its old code, without the upgrade's fixes, until it idled out),
// says so, and serves in its own process. The old daemon is played by a socket that answers the
// hello as a daemon before this check did (no version), and then nothing. Run as deno task start.
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/program.ts";
import { runToEnd } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

Deno.test("a daemon of an earlier lspgate is not used: the call says so and is answered in-process", async () => {
  const ws = await TempWorkspace.copy("deno");
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_version_" }));
  await Deno.chmod(runtime, 0o700);
  const folder = join(runtime, "lspgate");
  await Deno.mkdir(folder, { mode: 0o700 });
  const listener = Deno.listen({ transport: "unix", path: join(folder, "daemon.sock") });
  await Deno.chmod(join(folder, "daemon.sock"), 0o600);
  let hellos = 0;
  const served = (async () => {
    for await (const conn of listener) {
      const line = new Uint8Array(65536);
      await conn.read(line);
      hellos++;
      const hello = { ok: true, pid: 1, role: "main", allowMutations: false, root: ws.root };
      await conn.write(new TextEncoder().encode(JSON.stringify({ hello }) + "\n"));
    }
  })().catch(() => {});
  try {
    const out = await runToEnd(
      Deno.execPath(),
      ["task", "--quiet", "start", "call", "status", "--root", ws.root],
      { cwd: REPO_ROOT, env: { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0", NO_COLOR: "1" } },
    );
    assert.ok(hellos >= 1, "the client asked the daemon");
    assert.equal(out.code, 0, out.stderr);
    assert.match(
      out.stderr,
      /the daemon could not be used \(SERVER_START_FAILED: the daemon running is an earlier lspgate, this is \d+\.\d+\.\d+: stop it/,
    );
    assert.match(out.stdout, /^lspgate \d+\.\d+\.\d+, root /);
    assert.doesNotMatch(out.stdout, /served by the daemon/);
  } finally {
    listener.close();
    await served;
    await ws.remove();
    await Deno.remove(runtime, { recursive: true });
  }
});
