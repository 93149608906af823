// bubblewrap's probe answers from bwrap's exit, not from its stderr's end: inside sandbox-runtime
// a failed bwrap can leave a process behind that holds stderr open forever, and lspgate then
// never chose a sandbox (nor answered). A fake bwrap that fails and leaves such a process shows it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { bwrapUnavailableReason } from "./bwrap.ts";
import { boundDelay } from "../client_util.ts";

/**
 * The process's state letter once it is ended ("gone" or "Z"), or the last seen after 3 s: a
 * SIGKILLed process can still show R on a loaded machine while the kernel tears it down.
 */
async function endedState(pid: number): Promise<string> {
  let state = "";
  for (const deadline = Date.now() + 3000; Date.now() < deadline;) {
    state = await Deno.readTextFile(`/proc/${pid}/stat`).then(
      (stat) => stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3),
      () => "gone",
    );
    if (state === "gone" || state === "Z") return state;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return state;
}

Deno.test("bwrap's probe: a failed bwrap whose leftover process holds stderr open is judged at once, and the leftover is ended", async () => {
  const dir = await Deno.makeTempDir({ prefix: "lspgate-bwrap-probe-" });
  try {
    const marker = join(dir, "leftover.pid");
    const fake = join(dir, "bwrap");
    // The leftover keeps the fake's stderr (fd 2) open; the fake records its pid before it exits
    // (the leftover writing it itself could be ended first on a loaded machine).
    await Deno.writeTextFile(
      fake,
      `#!/bin/sh\nsleep 600 &\necho $! > ${marker}\n` +
        `echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2\nexit 1\n`,
    );
    await Deno.chmod(fake, 0o755);
    const reason = await bwrapUnavailableReason(fake);
    assert.equal(
      reason,
      `bubblewrap (${fake}) is installed but cannot create namespaces here: ` +
        "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
    );
    const leftover = Number((await Deno.readTextFile(marker)).trim());
    // Ended with bwrap's process group: not alive (or at most a zombie being reaped).
    const state = await endedState(leftover);
    assert.ok(state === "gone" || state === "Z", `the leftover ${leftover} is still ${state}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bwrap's probe: a bwrap that never finishes is judged after one trial's 5 s, and ended", async () => {
  const dir = await Deno.makeTempDir({ prefix: "lspgate-bwrap-hang-" });
  try {
    const marker = join(dir, "bwrap.pid");
    const fake = join(dir, "bwrap");
    await Deno.writeTextFile(fake, `#!/bin/sh\necho $$ >> ${marker}\nexec sleep 600\n`);
    await Deno.chmod(fake, 0o755);
    const reason = await bwrapUnavailableReason(fake);
    assert.equal(reason, `bubblewrap did not finish a trial sandbox in 5 s (${fake})`);
    // One trial, not two: the second would hang the same way.
    assert.equal((await Deno.readTextFile(marker)).trim().split("\n").length, 1);
    const hung = Number((await Deno.readTextFile(marker)).trim());
    const state = await endedState(hung);
    assert.ok(state === "gone" || state === "Z", `the hung bwrap ${hung} is still ${state}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("boundDelay() resolves after its time, or at once when its signal aborts", async () => {
  let started = performance.now();
  await boundDelay(30);
  assert.ok(performance.now() - started >= 25, `${performance.now() - started} ms`);
  const aborted = new AbortController();
  started = performance.now();
  const waiting = boundDelay(60_000, aborted.signal);
  aborted.abort();
  await waiting;
  assert.ok(performance.now() - started < 1000, `${performance.now() - started} ms`);
});
