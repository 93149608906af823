// The memory budget as a user runs it: `lspgate call` through `deno task start` (its grant, never
// -A, under which Deno may not read /proc) reaching one warm daemon for two copies of the deno
// fixture, with a budget below one server. After root B's server starts, root A's idle one is
// stopped for the budget, `status` says so, and A's next question starts it again and is right.
import assert from "node:assert/strict";
import { REPO_ROOT } from "../helpers/program.ts";
import { runToEnd } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

/** Whether process `pid` is gone within a few seconds. */
async function ended(pid: number, withinMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    try {
      await Deno.stat(`/proc/${pid}`);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

interface ServerView {
  state: string;
  reason?: string;
  pid?: number;
  rssMiB?: number;
}

Deno.test("under deno task start's grant, the daemon's memory budget stops the idle root's server; it answers again", async () => {
  await using a = await TempWorkspace.copy("deno");
  await using b = await TempWorkspace.copy("deno");
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_bg_" }));
  await Deno.chmod(runtime, 0o700);
  // The suite turns the daemon off for other tests; as a user runs it, it is on.
  const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0", NO_COLOR: "1" };
  const lspgate = (ws: TempWorkspace, args: string[]) =>
    runToEnd(Deno.execPath(), [
      "task",
      "--quiet",
      "--config",
      `${REPO_ROOT}deno.json`,
      "start",
      ...args,
      "--root",
      ws.root,
    ], { env });
  const call = async (ws: TempWorkspace, args: string[]) => {
    const out = await lspgate(ws, ["call", ...args, "--memory-budget", "1", "--json"]);
    assert.equal(out.code, 0, `${out.stdout}\n${out.stderr}`);
    assert.doesNotMatch(out.stderr, /could not be used/, out.stderr);
    return JSON.parse(out.stdout);
  };
  const definition = async (ws: TempWorkspace) => {
    const answer = await call(ws, ["definition", "file=src/main.ts", "line=7", "symbol=greet"]);
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.deepEqual(
      answer.details.locations.map((l: { file: string; line: number }) => [l.file, l.line]),
      [["src/greet.ts", (await ws.locate("src/greet.ts", "function greet")).line]],
    );
  };
  const servers = async (ws: TempWorkspace) => {
    const status = await call(ws, ["status"]);
    return { details: status.details, views: status.details.servers as ServerView[] };
  };
  try {
    await definition(a);
    const first = await servers(a);
    assert.equal(first.details.memoryBudgetMiB, 1);
    const running = first.views.find((s) => s.pid !== undefined);
    assert.ok(running && typeof running.rssMiB === "number", JSON.stringify(first.views));
    await definition(b);
    // The budget's check follows B's start (and reads /proc through cat): A's server is stopped.
    let stopped: ServerView | undefined;
    const deadline = Date.now() + 20_000;
    while (!stopped && Date.now() < deadline) {
      stopped = (await servers(a)).views.find((s) => s.state === "stopped");
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(stopped, "root A's idle server was stopped for the budget");
    assert.match(String(stopped.reason), /memory budget of 1 MiB/);
    const fromB = await servers(b);
    assert.equal(fromB.details.daemonPid, first.details.daemonPid, "one daemon for both roots");
    assert.ok(fromB.views.some((s) => s.pid !== undefined), "B's server, used last, is kept");
    assert.match(String(fromB.details.overBudget ?? ""), /more than the memory budget of 1 MiB/);
    // B's own server is named to B; to A it is another workspace's, never its path or size.
    assert.ok(String(fromB.details.overBudget).includes(`@${b.root} alone uses`));
    const toA = await call(a, ["status"]);
    assert.equal(
      toA.details.overBudget,
      "a server of another workspace this lspgate serves alone uses more than the memory budget " +
        "of 1 MiB; it is kept",
    );
    assert.ok(!JSON.stringify(toA).includes(b.root), JSON.stringify(toA));
    await definition(a);
    // `daemon stop` without the --memory-budget the calls used stops A's session all the same (it
    // stopped a session of its own flags only, leaving A's servers running); B's goes on.
    const serverOfA = (await servers(a)).views.find((s) => s.pid !== undefined)!.pid!;
    const stopA = await lspgate(a, ["daemon", "stop"]);
    assert.equal(stopA.code, 0, stopA.stderr);
    assert.ok(await ended(serverOfA), "A's server ended with its session");
    assert.equal((await servers(b)).details.daemonPid, first.details.daemonPid);
    await Deno.stat(`/proc/${first.details.daemonPid}`); // The daemon serves B on.
    await lspgate(b, ["daemon", "stop"]);
    assert.ok(await ended(first.details.daemonPid), "B's stop, its last, ended the daemon");
  } finally {
    await lspgate(a, ["daemon", "stop"]);
    await Deno.remove(runtime, { recursive: true });
  }
});
