// --telemetry FILE: JSON-lines events with durations that add up, from the real lspgate over a
// real server (deno lsp); nothing is written without it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { TempWorkspace } from "../helpers/workspace.ts";
import { daemonWorkspace } from "../helpers/daemon.ts";

const MOD = join(import.meta.dirname!, "..", "..", "mod.ts");

interface Event {
  event: string;
  t: number;
  id?: number;
  action?: string;
  server?: string;
  duration_ms?: number;
  ok?: boolean;
  error?: string;
}

Deno.test("telemetry: request, server start/ready/exit events whose durations fit the request's wall time", async () => {
  const ws = await TempWorkspace.copy("deno");
  const log = join(ws.root, "..", `telemetry_${crypto.randomUUID()}.jsonl`);
  try {
    const at = await ws.locate("src/main.ts", "greet");
    const requests = [
      { id: 1, action: "definition", file: "src/main.ts", ...at },
      { id: 2, action: "hover", file: "src/missing.ts", line: 1, column: 1 },
    ];
    const started = performance.now();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MOD, "--root", ws.root, "--telemetry", log],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode(requests.map((r) => JSON.stringify(r)).join("\n") + "\n"),
    );
    await writer.close();
    const out = await child.output();
    const wall = performance.now() - started;
    assert.equal(out.code, 0);
    const events: Event[] = (await Deno.readTextFile(log)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    const names = events.map((e) => e.event);
    for (
      const name of ["request.start", "request.stop", "server.start", "server.ready", "server.exit"]
    ) {
      assert.ok(names.includes(name), `${name} missing: ${names.join(", ")}`);
    }
    const start1 = events.find((e) => e.event === "request.start" && e.id === 1)!;
    const stop1 = events.find((e) => e.event === "request.stop" && e.id === 1)!;
    assert.equal(stop1.ok, true);
    assert.equal(stop1.action, "definition");
    // The stop's duration is the time between the two events, within the process's wall time.
    assert.ok(
      Math.abs((stop1.t - start1.t) - stop1.duration_ms!) < 5,
      JSON.stringify([start1, stop1]),
    );
    assert.ok(stop1.duration_ms! <= wall);
    // The cold request waited for the server: its start fits inside the request.
    const ready = events.find((e) => e.event === "server.ready")!;
    const serverStart = events.find((e) => e.event === "server.start")!;
    assert.equal(ready.server, "deno");
    assert.ok(serverStart.t >= start1.t && ready.t <= stop1.t);
    assert.ok(Math.abs((ready.t - serverStart.t) - ready.duration_ms!) < 5);
    assert.ok(ready.duration_ms! <= stop1.duration_ms!);
    const stop2 = events.find((e) => e.event === "request.stop" && e.id === 2)!;
    assert.deepEqual([stop2.ok, stop2.error], [false, "FILE_NOT_FOUND"]);
    // The server's exit comes last, at shutdown.
    assert.equal(names.at(-1), "server.exit");
  } finally {
    await Deno.remove(log).catch(() => {});
    await ws.remove();
  }
});

Deno.test("telemetry: nothing is written unless asked", async () => {
  const ws = await TempWorkspace.copy("deno");
  try {
    const before = [...Deno.readDirSync(ws.root)].map((e) => e.name).sort();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MOD, "--root", ws.root],
      env: { LSPGATE_TELEMETRY: "" },
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode('{"id": 1, "action": "status"}\n'));
    await writer.close();
    assert.equal((await child.status).code, 0);
    assert.deepEqual([...Deno.readDirSync(ws.root)].map((e) => e.name).sort(), before);
  } finally {
    await ws.remove();
  }
});

Deno.test("telemetry: the hook's start and stop, with its exit and duration", async () => {
  const ws = await TempWorkspace.copy("deno");
  const log = join(ws.root, "..", `telemetry_${crypto.randomUUID()}.jsonl`);
  try {
    await ws.write("src/main.ts", (await ws.read("src/main.ts")) + "const wrong: number = 'x';\n");
    const started = performance.now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        MOD,
        "hook",
        "src/main.ts",
        "--root",
        ws.root,
        "--no-daemon",
        "--telemetry",
        log,
      ],
      stdout: "null",
      stderr: "null",
    }).output();
    const wall = performance.now() - started;
    assert.equal(out.code, 2);
    const events: (Event & { exit?: number })[] = (await Deno.readTextFile(log)).trim().split("\n")
      .map((l) => JSON.parse(l));
    const start = events.find((e) => e.event === "hook.start")!;
    const stop = events.find((e) => e.event === "hook.stop")!;
    assert.equal(stop.exit, 2);
    assert.ok(Math.abs((stop.t - start.t) - stop.duration_ms!) < 5);
    assert.ok(stop.duration_ms! <= wall);
    // The request the hook made sits inside the hook's own time.
    const request = events.find((e) => e.event === "request.stop")!;
    assert.ok(request.t <= stop.t && request.duration_ms! <= stop.duration_ms!);
  } finally {
    await Deno.remove(log).catch(() => {});
    await ws.remove();
  }
});

Deno.test("telemetry through the daemon: the call's request events, and the warm servers' events from the daemon it started", async () => {
  const setup = await daemonWorkspace();
  const log = join(setup.ws.root, "..", `telemetry_${crypto.randomUUID()}.jsonl`);
  try {
    const at = await setup.ws.locate("src/main.ts", "greet");
    const call = await setup.run([
      "call",
      "definition",
      "file=src/main.ts",
      `line=${at.line}`,
      `column=${at.column}`,
      "--telemetry",
      log,
    ]);
    assert.equal(call.code, 0, call.stderr);
    assert.equal((await setup.daemon()).running, true, "the call went through a daemon");
    // The daemon keeps serving: its server's start and readiness are in the file already.
    const events: Event[] = (await Deno.readTextFile(log)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    const names = events.map((e) => e.event);
    for (const name of ["request.start", "request.stop", "server.start", "server.ready"]) {
      assert.ok(names.includes(name), `${name} missing: ${names.join(", ")}`);
    }
    assert.equal(events.find((e) => e.event === "server.ready")!.server, "deno");
  } finally {
    await setup.cleanup();
    await Deno.remove(log).catch(() => {});
  }
});
