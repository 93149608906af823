// The warm hook's memory of an agent's turn (src/frontends/turn_state.ts), through real lspgate
// processes on a warm daemon over deno lsp: the end-of-turn report (`hook --event stop`, Claude
// Code's Stop payload) covers the turn's last 16 touched files and lets an agent already
// continuing because of a stop hook stop; an importer's errors are reported when an edit changed
// them, not again on every edit.
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertQuiet,
  configFile,
  daemonWorkspace,
  hookPayload,
  type RunOutput,
} from "../helpers/daemon.ts";

const BROKEN = 'export const n: number = "x";\n';

/** The files a hook report names, in its order (`path:line:column severity …` lines). */
function reported(text: string): string[] {
  return text.split("\n").map((l) => /^([^\s:]+):\d+:\d+ (error|warning)/.exec(l)?.[1])
    .filter((f): f is string => f !== undefined);
}

/** A warm daemon whose hook deadline is only a hang guard (these tests are not about speed). */
async function warmTurn() {
  const config = await configFile({ hookDeadlineMs: 120_000 });
  const setup = await daemonWorkspace({ flags: ["--config", config] });
  assert.equal((await setup.run(["call", "diagnostics", "file=src/main.ts"])).code, 0);
  const session = `s-${crypto.randomUUID()}`;
  return {
    ...setup,
    session,
    /**
     * The PostToolUse hook for a Write of `file` (workspace-relative), in `session`; `original`
     * is the file's text before the write, as Claude Code sends it.
     */
    post: (file: string, inSession = session, flags: string[] = [], original?: string) =>
      setup.run(
        ["hook", ...flags],
        hookPayload(inSession, "PostToolUse", {
          file: join(setup.ws.root, file),
          original,
        }),
      ),
    /** The Stop hook of `session`. */
    stop: (stopHookActive = false) =>
      setup.run(["hook"], hookPayload(session, "Stop", { stopHookActive })),
    cleanup: async () => {
      await setup.cleanup();
      await Deno.remove(config);
    },
  };
}

function assertExit(out: RunOutput, code: number): void {
  assert.equal(out.code, code, `exit ${out.code}\nstdout: ${out.stdout}\nstderr: ${out.stderr}`);
}

Deno.test("the end of a turn reports the turn's 16 most recently touched files, a file touched again counting as recent", async () => {
  const turn = await warmTurn();
  try {
    const files = Array.from({ length: 17 }, (_, i) => `src/t${String(i + 1).padStart(2, "0")}.ts`);
    for (const file of files) await turn.ws.write(file, BROKEN);
    // t01 … t16, then t01 again (now the most recent), then t17: the oldest, t02, is forgotten.
    for (const file of [...files.slice(0, 16), files[0], files[16]]) {
      const out = await turn.post(file);
      assertExit(out, 2);
      assert.deepEqual(reported(out.stderr), [file]);
    }
    const stop = await turn.stop();
    assertExit(stop, 2);
    assert.equal(stop.stdout, "");
    assert.match(stop.stderr, /^lspgate: 16 errors, 0 warnings in 16 edited files:\n/);
    assert.deepEqual(
      reported(stop.stderr).sort(),
      files.filter((f) => f !== "src/t02.ts").sort(),
    );
    // Reported once, then forgotten: the next turn's end has nothing to say.
    assert.deepEqual(await turn.stop(), { code: 0, stdout: "", stderr: "" });
  } finally {
    await turn.cleanup();
  }
});

Deno.test("stop_hook_active: the end-of-turn report goes to stdout with exit 0, so an agent already continuing because of it may stop", async () => {
  const turn = await warmTurn();
  try {
    await turn.ws.write("src/bad.ts", BROKEN);
    const at = await turn.ws.locate("src/bad.ts", "n: number");
    const line = `src/bad.ts:${at.line}:${at.column} error [deno-ts 2322]: `;
    assertExit(await turn.post("src/bad.ts"), 2);

    // The agent was already sent back to work by a stop hook: say it, do not block it again.
    const active = await turn.stop(true);
    assertExit(active, 0);
    assert.equal(active.stderr, "");
    assert.match(active.stdout, /^lspgate: 1 error, 0 warnings in 1 edited file:\n/);
    assert.ok(active.stdout.includes(line), active.stdout);

    // The next turn touches it again and ends without a stop hook active: exit 2, on stderr.
    assertExit(await turn.post("src/bad.ts"), 2);
    const blocked = await turn.stop(false);
    assertExit(blocked, 2);
    assert.equal(blocked.stdout, "");
    assert.match(blocked.stderr, /^lspgate: 1 error, 0 warnings in 1 edited file:\n/);
    assert.ok(blocked.stderr.includes(line), blocked.stderr);

    // A Stop payload without a session id cannot name a turn: lspgate's own failure, exit 0.
    assertQuiet(
      await turn.run(["hook", "--event", "stop"], JSON.stringify({ hook_event_name: "Stop" })),
      /^lspgate hook: the end-of-turn report needs the payload's session_id$/,
    );
  } finally {
    await turn.cleanup();
  }
});

/** greet.ts's text with greet() taking another type (itself clean): its callers break. */
async function importerCase(turn: Awaited<ReturnType<typeof warmTurn>>) {
  // Both files open in the warm server, so the importer's check is quick after an edit.
  assert.equal(
    (await turn.run(["call", "diagnostics", "files=src/main.ts,src/greet.ts"])).code,
    0,
  );
  const original = await turn.ws.read("src/greet.ts");
  const taking = (type: string, argument: string) => {
    const text = original.replace("greet(name: string)", `greet(name: ${type})`)
      .replace("greet(name))", `greet(${argument}))`);
    assert.notEqual(text, original);
    return text;
  };
  const callers = [
    ["src/main.ts", await turn.ws.locate("src/main.ts", "greet(名前)")],
    ["src/report.ts", await turn.ws.locate("src/report.ts", "greet(title)")],
  ] as const;
  const assertCallersReported = (out: RunOutput, type: string) => {
    assertExit(out, 2);
    // The edited file is clean: the callers' errors are the edit's, never counted as edited.
    assert.match(
      out.stderr,
      /^lspgate: 0 errors, 0 warnings in 1 edited file; 2 errors it caused in 2 importing files:\n/,
    );
    for (const [file, at] of callers) {
      const line = out.stderr.split("\n").find((l) => l.startsWith(`${file}:${at.line}:`));
      assert.match(String(line), / error \[deno-ts 2345\]: /, out.stderr);
      assert.ok(String(line).includes(`type '${type}'`), out.stderr);
    }
    assert.deepEqual(reported(out.stderr).sort(), callers.map(([file]) => file));
  };
  return { original, taking, assertCallersReported };
}

Deno.test("with the file's text from before the edit (Claude Code's originalFile), the importers' errors the edit caused are reported, and only those", async () => {
  const turn = await warmTurn();
  const telemetry = await Deno.makeTempFile({
    prefix: "lspgate_hook_telemetry_",
    suffix: ".jsonl",
  });
  try {
    const { original, taking, assertCallersReported } = await importerCase(turn);
    // 1. greet now takes a number: both callers break, and are reported.
    const number = taking("number", "name.length");
    await turn.ws.write("src/greet.ts", number);
    assertCallersReported(await turn.post("src/greet.ts", turn.session, [], original), "number");

    // 2. Another edit of greet.ts leaves the callers' errors as they were: not the edit's, not
    // reported, though compared (telemetry: the what-if of greet.ts answered ok).
    const commented = `${number}\n// Edited again.\n`;
    await turn.ws.write("src/greet.ts", commented);
    const second = await turn.post(
      "src/greet.ts",
      turn.session,
      ["--telemetry", telemetry],
      number,
    );
    assert.deepEqual(second, { code: 0, stdout: "", stderr: "" });
    const events = (await Deno.readTextFile(telemetry)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    // greet.ts's own diagnostics, then the what-if of its text before the edit.
    const stops = events.filter((e) => e.event === "request.stop" && e.action === "diagnostics");
    assert.deepEqual(stops.map((e) => [/^hook-what-if-/.test(e.id), e.ok]), [
      [false, true],
      [true, true],
    ]);

    // In another session, the same: the edit did not cause them.
    const other = await turn.post("src/greet.ts", `s-${crypto.randomUUID()}`, [], number);
    assert.deepEqual(other, { code: 0, stdout: "", stderr: "" });

    // 3. An edit that changes the callers' errors: reported, the new ones.
    await turn.ws.write("src/greet.ts", taking("boolean", "name.length > 0"));
    assertCallersReported(
      await turn.post("src/greet.ts", turn.session, [], commented),
      "boolean",
    );
  } finally {
    await turn.cleanup();
    await Deno.remove(telemetry);
  }
});

Deno.test("without the text from before the edit, an importer's errors are reported when they differ from the session's last look at it, the first look being only the baseline", async () => {
  const turn = await warmTurn();
  try {
    const { taking, assertCallersReported } = await importerCase(turn);
    // 1. The callers break, but this session never looked at them before: they may be older than
    // the edit, so they are the baseline, not reported (greet.ts itself is clean).
    await turn.ws.write("src/greet.ts", taking("number", "name.length"));
    assert.deepEqual(await turn.post("src/greet.ts"), { code: 0, stdout: "", stderr: "" });
    // 2. An edit that changes them: reported.
    await turn.ws.write("src/greet.ts", taking("boolean", "name.length > 0"));
    assertCallersReported(await turn.post("src/greet.ts"), "boolean");
    // 3. Another edit leaving them as they were: not reported again.
    await turn.ws.write("src/greet.ts", taking("boolean", "name.length > 0") + "\n// Again.\n");
    assert.deepEqual(await turn.post("src/greet.ts"), { code: 0, stdout: "", stderr: "" });
  } finally {
    await turn.cleanup();
  }
});

Deno.test("post-edit hooks of one session run at once (parallel edits): the end of the turn still reports every file", async () => {
  const turn = await warmTurn();
  try {
    const files = Array.from({ length: 6 }, (_, i) => `src/p${i + 1}.ts`);
    for (const file of files) await turn.ws.write(file, BROKEN);
    const outs = await Promise.all(files.map((file) => turn.post(file)));
    for (const out of outs) assertExit(out, 2);
    const stop = await turn.stop();
    assertExit(stop, 2);
    assert.deepEqual(reported(stop.stderr).sort(), [...files].sort());
  } finally {
    await turn.cleanup();
  }
});
