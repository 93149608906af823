// The primary interface end to end: the real program (`deno run -A mod.ts --root <tmp>`) spoken
// to in JSON lines on stdin/stdout, with deno lsp behind it.
import assert from "node:assert/strict";
import { type Line, Program } from "../helpers/program.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

Deno.test("the JSON-lines program answers concurrent requests by id and exits 0 on EOF", async () => {
  const ws = await TempWorkspace.copy("deno");
  const program = new Program(["--root", ws.root]);
  let finished = false;
  try {
    const call = await ws.within("src/main.ts", "message = greet(名前)", "greet");
    await program.send(
      // Slow: starts deno lsp.
      { id: 1, action: "definition", file: "src/main.ts", line: call.line, column: call.column },
      "this is not JSON",
      "[1, 2]",
      "",
      // Fast: answered while the definition still waits for the server.
      { id: "two", action: "servers" },
      { id: 3, action: "frobnicate" },
      { id: 4, action: "definition", file: "../outside.ts", line: 1, column: 1 },
    );
    const answers = await program.read(6);
    const byId = new Map(answers.filter((a) => a.id !== null).map((a) => [a.id, a]));
    assert.deepEqual([...byId.keys()].sort(), [1, 3, 4, "two"].sort());

    const garbage = answers.filter((a) => a.id === null);
    assert.deepEqual(
      garbage.map((a) => (a.error as { code: string }).code).sort(),
      ["INVALID_INPUT", "INVALID_JSON"],
    );
    assert.ok(garbage.every((a) => a.ok === false));

    // Completion order, not request order: the fast answer overtakes the slow one.
    const order = answers.map((a) => a.id);
    assert.ok(order.indexOf("two") < order.indexOf(1), `answer order: ${JSON.stringify(order)}`);

    const definition = byId.get(1)!;
    assert.equal(definition.ok, true, JSON.stringify(definition));
    assert.deepEqual((definition.details as { locations: unknown[] }).locations, [
      await ws.within("src/greet.ts", "function greet(", "greet"),
    ]);
    assert.equal(code(byId.get(3)!), "UNKNOWN_ACTION");
    assert.equal(code(byId.get(4)!), "OUTSIDE_WORKSPACE");

    // The server is running now; its pid must be gone after EOF.
    await program.send({ id: 5, action: "status" });
    const [status] = await program.read(1);
    const servers = (status.details as { servers: { server: string; pid: number }[] }).servers;
    assert.deepEqual(servers.map((s) => s.server), ["deno"]);
    const pid = servers[0].pid;

    const end = await program.finish();
    finished = true;
    assert.equal(end.code, 0, end.stderr);
    assert.deepEqual(end.rest, []);
    // stdout carried protocol lines only: each one is a JSON response object.
    for (const raw of program.raw) {
      const line = JSON.parse(raw);
      assert.equal(typeof line.ok, "boolean", raw);
      assert.ok("id" in line, raw);
    }
    assert.equal(await processExists(pid), false, `deno lsp (pid ${pid}) still runs after EOF`);
  } finally {
    if (!finished) await program.kill();
    await ws.remove();
  }
});

Deno.test("--role subagent refuses rename with apply even with --allow-mutations, previews it", async () => {
  const ws = await TempWorkspace.copy("deno");
  const program = new Program(["--root", ws.root, "--role", "subagent", "--allow-mutations"]);
  let finished = false;
  try {
    const before = await ws.read("src/greet.ts");
    const rename = { action: "rename", file: "src/greet.ts", query: "greet", new_name: "welcome" };
    await program.send({ id: 1, ...rename, apply: true });
    const [refused] = await program.read(1);
    assert.equal(code(refused), "ACTION_NOT_ALLOWED");
    assert.match((refused.error as { message: string }).message, /--role subagent/);

    await program.send({ id: 2, ...rename });
    const [preview] = await program.read(1);
    assert.equal(preview.ok, true, JSON.stringify(preview));
    const details = preview.details as { applied: boolean; edits: number };
    assert.equal(details.applied, false);
    assert.equal(details.edits, 6);
    assert.equal(await ws.read("src/greet.ts"), before);

    await program.send({ id: 3, action: "status" });
    const [status] = await program.read(1);
    const facts = status.details as { role: string; allowMutations: boolean };
    assert.equal(facts.role, "subagent");
    assert.equal(facts.allowMutations, false);

    const end = await program.finish();
    finished = true;
    assert.equal(end.code, 0, end.stderr);
  } finally {
    if (!finished) await program.kill();
    await ws.remove();
  }
});

function code(line: Line): string | undefined {
  return line.ok === false ? (line.error as { code: string }).code : undefined;
}

async function processExists(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // A zombie (state Z) has exited and only waits to be reaped.
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

// SIGINT too: Claude Code stops its MCP servers with it, and Deno's default skipped every cleanup.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal} ends the JSON-lines program as EOF does: exit 0, its server stopped, its barrier folder removed`, async () => {
    const ws = await TempWorkspace.copy("deno");
    const runtime = await Deno.makeTempDir({ prefix: "lspgate-sigterm-" });
    await Deno.chmod(runtime, 0o700);
    const program = new Program(["--root", ws.root], { XDG_RUNTIME_DIR: runtime });
    const barriers = () =>
      [...Deno.readDirSync(`${runtime}/lspgate`)].filter((e) => e.name.startsWith("barrier-"));
    let finished = false;
    try {
      const call = await ws.within("src/main.ts", "message = greet(名前)", "greet");
      await program.send(
        { id: 1, action: "definition", file: "src/main.ts", line: call.line, column: call.column },
      );
      const [definition] = await program.read(1);
      assert.equal(definition.ok, true, JSON.stringify(definition));
      await program.send({ id: 2, action: "servers" });
      const [listed] = await program.read(1);
      const servers = (listed.details as { servers: { pid?: number }[] }).servers;
      const serverPid = servers.find((s) => s.pid !== undefined)?.pid;
      assert.ok(serverPid, JSON.stringify(servers));
      // The watcher orders its events with a barrier in the private runtime folder.
      assert.equal(barriers().length, 1);

      program.signal(signal);
      const end = await program.finish();
      finished = true;
      assert.equal(end.code, 0, end.stderr);
      assert.deepEqual(barriers(), []);
      assert.equal(await exited(serverPid), true, "the server outlived lspgate");
    } finally {
      if (!finished) await program.kill();
      await ws.remove();
      await Deno.remove(runtime, { recursive: true });
    }
  });
}

/** Whether a process is gone (or dead, awaiting its reaper), waiting a little for it. */
async function exited(pid: number): Promise<boolean> {
  for (let tries = 0; tries < 30; tries++) {
    let state: string | undefined;
    try {
      state = Deno.readTextFileSync(`/proc/${pid}/stat`).replace(/^.*\) /s, "")[0];
    } catch {
      return true;
    }
    if (state === "Z" || state === "X") return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

Deno.test("an id its answer could not carry back exactly is INVALID_INPUT under null, in-process and through the daemon", async () => {
  // 9007199254740993 came back as 9007199254740992 (JSON.parse rounds past 2^53: another request's
  // id), an object id as null with ok: true.
  const ws = await TempWorkspace.copy("deno");
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_ids_" }));
  await Deno.chmod(runtime, 0o700);
  const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0" };
  try {
    for (const args of [["--no-servers"], ["--daemon"]]) {
      const program = new Program(["--root", ws.root, ...args], env);
      try {
        await program.send(
          '{"id":9007199254740993,"action":"status"}',
          { id: { a: 1 }, action: "status" },
          { id: 9007199254740991, action: "status" },
          // Read as Infinity (answered under null, ok) and as 1 (another request's id).
          '{"id":1e400,"action":"status"}',
          '{"id":1.0000000000000001,"action":"status"}',
          // A nested id written as 1 does not vouch for the top-level one (a reviewer's find);
          // an escaped key is the id all the same.
          '{"x":{"id":1},"id":1.0000000000000001,"action":"status"}',
          '{"\\u0069d":7,"action":"status"}',
        );
        const answers = await program.read(7);
        assert.ok(answers.some((a) => a.id === 7 && a.ok === true), JSON.stringify(answers));
        const refused = answers.filter((a) => a.id === null);
        const tooLarge = "a numeric id must be an integer of at most 2^53 to be answered " +
          "exactly; send it as a string";
        assert.deepEqual(
          refused.map((a) => (a.error as { message: string }).message).sort(),
          [
            tooLarge,
            tooLarge,
            "the id is not written as the integer 1 it reads as; send it as a string",
            "the id is not written as the integer 1 it reads as; send it as a string",
            "the id must be a string or a number",
          ].sort(),
          args.join(" "),
        );
        // The largest exact integer is an id like any other.
        assert.ok(answers.some((a) => a.id === 9007199254740991 && a.ok === true));
        await program.finish();
      } catch (error) {
        await program.kill();
        throw error;
      }
    }
  } finally {
    await new Program(["daemon", "stop", "--root", ws.root], env).finish().catch(() => {});
    await ws.remove();
    await Deno.remove(runtime, { recursive: true });
  }
});
