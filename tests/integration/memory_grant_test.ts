// Memory under the grant users run lspgate with (`deno task start`, never -A). Deno asks
// --allow-all for any path under /proc, so there lspgate has `cat` read it (the servers' stat
// files, /proc/meminfo): `status` reports each server's rssMiB (within 10% of /proc, read here),
// the default budget is half the machine's memory, and through the daemon the watcher process's
// memory is reported too. Real deno lsp on the deno fixture.
import assert from "node:assert/strict";
import { REPO_ROOT } from "../helpers/program.ts";
import { runToEnd } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

/** Resident memory of a process tree in MiB, read from /proc here (the test runs with -A). */
function procTreeMiB(pid: number): number {
  let kib = Number(
    Deno.readTextFileSync(`/proc/${pid}/status`).match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? 0,
  );
  for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
    const children = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/children`).trim();
    for (const child of children ? children.split(" ") : []) {
      kib += procTreeMiB(Number(child)) * 1024;
    }
  }
  return kib / 1024;
}

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
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "--config", `${REPO_ROOT}deno.json`, "start", ...args],
    env: { NO_COLOR: "1", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const answer = async (request: Record<string, unknown>) => {
    await writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("lspgate's output ended");
      buffered += value;
    }
    const line = buffered.slice(0, buffered.indexOf("\n"));
    buffered = buffered.slice(buffered.indexOf("\n") + 1);
    return JSON.parse(line);
  };
  try {
    const hover = await answer({
      id: 1,
      action: "hover",
      file: "src/main.ts",
      line: 8,
      column: 10,
    });
    assert.equal(hover.ok, true, JSON.stringify(hover));
    const status = await answer({ id: 2, action: "status" });
    assert.equal(status.ok, true, JSON.stringify(status));
    // Measured here while lspgate still runs its server.
    const running = (status.details as Status).servers.find((s) => s.pid !== undefined);
    const procMiB = running?.pid ? procTreeMiB(running.pid) : undefined;
    const watcherMiB = status.details.watcher?.pid
      ? procTreeMiB(status.details.watcher.pid)
      : undefined;
    return { details: status.details as Status, procMiB, watcherMiB, text: status.content[0].text };
  } finally {
    await writer.close();
    await lines.cancel();
    await child.stderr.cancel();
    await child.status;
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
