// Memory under the grant users run lspgate with (`deno task start`, never -A). Deno asks
// --allow-all for any path under /proc, so there lspgate has `cat` read it (the servers' stat
// files, /proc/meminfo): `status` reports each server's rssMiB (within 10% of /proc, read here),
// the default budget is half the machine's memory, and through the daemon the watcher process's
// memory is reported too. Real deno lsp on the deno fixture.
import assert from "node:assert/strict";
import { REPO_ROOT, startTask } from "../helpers/program.ts";
import { runToEnd } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";
import { procTreeMiB } from "../helpers/proc.ts";

function halfTheMachineMiB(): number {
  const meminfo = Deno.readTextFileSync("/proc/meminfo");
  return Math.floor(Number(meminfo.match(/^MemTotal:\s+(\d+) kB/m)![1]) / 1024 / 2);
}

interface Status {
  memoryBudgetMiB: number | null;
  serversRssMiB: number | null;
  servers: { state: string; pid?: number; rssMiB?: number }[];
  watcher?: { runsOn: string; pid?: number; rssMiB?: number };
}

/** `deno task start ARGS` in the deno fixture: a hover, then `status`'s details. */
async function statusUnderStartTask(args: string[], env: Record<string, string>) {
  const lspgate = startTask(args, env);
  try {
    const hover = await lspgate.ask({
      id: 1,
      action: "hover",
      file: "src/main.ts",
      line: 8,
      column: 10,
    });
    assert.equal(hover.ok, true, JSON.stringify(hover));
    const status = await lspgate.ask({ id: 2, action: "status" }) as {
      details: Status;
      content: { text: string }[];
    };
    // Measured here while lspgate still runs its server.
    const running = status.details.servers.find((s) => s.pid !== undefined);
    const procMiB = running?.pid ? procTreeMiB(running.pid) : undefined;
    const watcherMiB = status.details.watcher?.pid
      ? procTreeMiB(status.details.watcher.pid)
      : undefined;
    return { details: status.details, procMiB, watcherMiB, text: status.content[0].text };
  } finally {
    await lspgate.finish();
  }
}

function assertMeasured(found: Awaited<ReturnType<typeof statusUnderStartTask>>) {
  const { details, procMiB } = found;
  assert.doesNotMatch(found.text, /memory unknown/);
  assert.equal(details.memoryBudgetMiB, halfTheMachineMiB(), "the default budget: half of RAM");
  const running = details.servers.find((s) => s.pid !== undefined);
  assert.ok(running, `deno lsp runs: ${JSON.stringify(details.servers)}`);
  assert.equal(typeof running.rssMiB, "number", `rssMiB reported: ${JSON.stringify(running)}`);
  assert.ok(
    Math.abs(running.rssMiB! - procMiB!) <= procMiB! * 0.1,
    `rssMiB ${running.rssMiB} within 10% of /proc's ${procMiB}`,
  );
  assert.equal(details.serversRssMiB, running.rssMiB);
}

Deno.test("under deno task start's grant, status reports servers' memory and the default budget", async () => {
  await using ws = await TempWorkspace.copy("deno");
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_mg_" }));
  await Deno.chmod(runtime, 0o700);
  try {
    const found = await statusUnderStartTask(["--root", ws.root], { XDG_RUNTIME_DIR: runtime });
    assertMeasured(found);
    assert.equal(found.details.watcher?.runsOn, "main thread", "a small tree, on this thread");
  } finally {
    await Deno.remove(runtime, { recursive: true });
  }
});

Deno.test("through the daemon under that grant: the watcher runs in its own process, measured too", async () => {
  await using ws = await TempWorkspace.copy("deno");
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_mg_" }));
  await Deno.chmod(runtime, 0o700);
  // The suite turns the daemon off for other tests; as a user runs it, it is on.
  const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0" };
  try {
    const found = await statusUnderStartTask(["--root", ws.root, "--daemon"], env);
    assertMeasured(found);
    const watcher = found.details.watcher!;
    assert.equal(watcher.runsOn, "process", JSON.stringify(watcher));
    assert.equal(typeof watcher.rssMiB, "number");
    assert.ok(
      Math.abs(watcher.rssMiB! - found.watcherMiB!) <= Math.max(2, found.watcherMiB! * 0.1),
      `the watcher's rssMiB ${watcher.rssMiB} against /proc's ${found.watcherMiB}`,
    );
  } finally {
    await runToEnd(Deno.execPath(), [
      "task",
      "--quiet",
      "--config",
      `${REPO_ROOT}deno.json`,
      "start",
      "--root",
      ws.root,
      "daemon",
      "stop",
    ], { env: { ...env, NO_COLOR: "1" } });
    await Deno.remove(runtime, { recursive: true });
  }
});
