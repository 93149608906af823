// The daemon runs with glibc's malloc arenas capped (src/daemon/daemon_env.ts): real `lspgate call`
// processes start it, and /proc says what environment it was started with and what the language
// server it started (unsandboxed, so inheriting the daemon's environment) has.
import assert from "node:assert/strict";
import { runLspgate } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

/** A process's environment as it was started (`/proc/PID/environ`). */
function environ(pid: number): Map<string, string> {
  const text = Deno.readTextFileSync(`/proc/${pid}/environ`);
  return new Map(
    text.split("\0").filter(Boolean).map((
      kv,
    ) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
}

/**
 * Starts the daemon through `lspgate call` with exactly `extra` beside PATH and HOME (nothing of
 * this test's environment, which may set malloc variables), asks one definition so a server runs,
 * and returns the daemon's and the server's environment.
 */
async function daemonAndServer(extra: Record<string, string>) {
  const ws = await TempWorkspace.copy("deno");
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_rt_" }));
  await Deno.chmod(runtime, 0o700);
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/",
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    XDG_RUNTIME_DIR: runtime,
    LSPGATE_NO_DAEMON: "0",
    ...extra,
  };
  const run = (args: string[]) =>
    runLspgate([...args, "--sandbox", "none", "--root", ws.root], { env, clearEnv: true });
  try {
    const at = await ws.locate("src/main.ts", "greet(名前)");
    const definition = await run([
      "call",
      "definition",
      "file=src/main.ts",
      `line=${at.line}`,
      "symbol=greet",
    ]);
    assert.equal(definition.code, 0, definition.stderr);
    assert.match(definition.stdout, /src\/greet\.ts:2:17/);
    const status = JSON.parse((await run(["call", "status", "--json"])).stdout);
    const daemonPid = status.details.daemonPid as number;
    assert.equal(typeof daemonPid, "number", JSON.stringify(status.details));
    const serverPid = (status.details.servers as { pid?: number }[]).find((s) => s.pid)?.pid;
    assert.ok(serverPid, JSON.stringify(status.details.servers));
    return { daemon: environ(daemonPid), server: environ(serverPid) };
  } finally {
    await run(["daemon", "stop"]);
    await ws.remove();
    await Deno.remove(runtime, { recursive: true });
  }
}

Deno.test("the daemon starts with MALLOC_ARENA_MAX=2; the server it starts does not inherit it", async () => {
  const { daemon, server } = await daemonAndServer({});
  assert.equal(daemon.get("MALLOC_ARENA_MAX"), "2");
  // Unsandboxed, the server has the user's environment (the daemon's runtime folder variable is
  // there), without what lspgate added for the daemon alone.
  assert.ok(server.has("XDG_RUNTIME_DIR"), [...server.keys()].join(" "));
  assert.equal(server.get("MALLOC_ARENA_MAX"), undefined);
  assert.equal(server.get("LSPGATE_DAEMON_ADDED_ENV"), undefined);
});

Deno.test("a MALLOC_ARENA_MAX or GLIBC_TUNABLES arena cap the user set stands, for the daemon and its server", async () => {
  const own = await daemonAndServer({ MALLOC_ARENA_MAX: "4" });
  assert.equal(own.daemon.get("MALLOC_ARENA_MAX"), "4");
  assert.equal(own.daemon.get("LSPGATE_DAEMON_ADDED_ENV"), undefined);
  assert.equal(own.server.get("MALLOC_ARENA_MAX"), "4");
  const tunables = await daemonAndServer({ GLIBC_TUNABLES: "glibc.malloc.arena_max=8" });
  assert.equal(tunables.daemon.get("MALLOC_ARENA_MAX"), undefined);
  assert.equal(tunables.daemon.get("GLIBC_TUNABLES"), "glibc.malloc.arena_max=8");
});
