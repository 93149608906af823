// Real language servers killed with SIGKILL mid-session: pyright on tests/fixtures/python and
// typescript-language-server on tests/fixtures/typescript. lspgate must restart the server with
// its documents open again and answer exactly as before; a query in flight at the kill must
// answer SERVER_EXITED (not hang, not succeed with nothing); and no helper of a server's process
// group (tsserver) may outlive it.
import assert from "node:assert/strict";
import type { Response } from "../../mod.ts";
import { REPO_ROOT } from "../helpers/program.ts";
import {
  expectError,
  type Harness,
  harness,
  type Location,
  locationsOf,
} from "../helpers/session.ts";

/** A server as `status` shows it (`details.servers[]`). */
interface ServerView {
  server: string;
  root: string;
  state: string;
  pid?: number;
  restarts: number;
  openDocuments?: number;
  reason?: string;
}

/** State and process group of a process, from /proc/<pid>/stat; undefined once reaped. */
function procStat(pid: number): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ")".
  const [state, _ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state, pgrp: Number(pgrp) };
}

/** True while the process runs (a zombie has exited and only waits to be reaped). */
function alive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== "Z";
}

/** Live processes whose process group (field 5 of /proc/<pid>/stat) is `pgid`. */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = procStat(Number(entry.name));
    if (stat && stat.state !== "Z" && stat.pgrp === pgid) members.push(Number(entry.name));
  }
  return members;
}

/** The typescript fixture's definition of formatPrice, asked at its call, and where it is. */
async function formatPriceDefinition(ws: Harness["ws"]) {
  const call = await ws.within("src/index.ts", "formatPrice(basket.price())", "formatPrice");
  const definition = {
    action: "definition",
    file: "src/index.ts",
    line: call.line,
    column: call.column,
  };
  const expected = [await ws.within("src/format.ts", "function formatPrice(", "formatPrice")];
  return { definition, expected };
}

/** Polls `condition` every 20 ms; throws naming `what` after `timeoutMs`. */
async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!await condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The one server `status` lists. */
async function onlyServer(h: Harness): Promise<ServerView> {
  const status = await h.ok({ action: "status" });
  const servers = status.details.servers as ServerView[];
  assert.equal(servers.length, 1, JSON.stringify(servers));
  return servers[0];
}

/** Kills the server with SIGKILL and waits until its process is gone. */
async function killServer(pid: number): Promise<void> {
  Deno.kill(pid, "SIGKILL");
  await waitUntil(() => !alive(pid), `pid ${pid} to die`);
}

/**
 * Kills a server and waits until it is reaped (gone from /proc, not just a zombie): a server
 * that died between two queries. (In the few ms between death and reaping lspgate cannot tell a
 * dead server from a live one; a query sent then answers SERVER_EXITED, honestly, and the next
 * one restarts it.)
 */
async function killServerBetweenQueries(pid: number): Promise<void> {
  Deno.kill(pid, "SIGKILL");
  await waitUntil(() => procStat(pid) === undefined, `pid ${pid} to be reaped`);
}

/** Waits until lspgate has seen its server exit (status: crashed). */
async function waitCrashed(h: Harness): Promise<ServerView> {
  let server: ServerView | undefined;
  await waitUntil(async () => {
    server = await onlyServer(h);
    return server.state === "crashed";
  }, "status to show the server crashed");
  return server!;
}

/**
 * Freezes the server (SIGSTOP), sends `request`, and waits until lspgate has asked the frozen
 * server `method` and the frame has had time to be written to its stdin: the request is then in
 * flight when the server is killed. Waiting for the lease alone was not enough: under CI's load
 * the kill came before the request was written, so it was (rightly) retried on a new server and
 * answered. Rationale for freezing: on these small fixtures no request is slow enough to be
 * caught in flight by timing alone.
 */
async function sendToFrozenServer(
  h: Harness,
  pid: number,
  request: Record<string, unknown>,
  method: string,
): Promise<{ answer: Promise<Response> }> {
  const entry = h.session.manager.entries().find((e) =>
    e.state.kind === "running" && e.state.client.pid === pid
  );
  if (entry?.state.kind !== "running") throw new Error(`no running server with pid ${pid}`);
  const client = entry.state.client;
  const original = client.request.bind(client);
  let asked = false;
  // The test's spy on the client's own method: the product has no hook for "written".
  client.request = ((...args: Parameters<typeof original>) => {
    if (args[0] === method) asked = true;
    return original(...args);
  }) as typeof client.request;
  Deno.kill(pid, "SIGSTOP");
  const answer = h.ask(request);
  try {
    await waitUntil(() => asked, `lspgate to ask the server ${method}`);
  } finally {
    client.request = original;
  }
  // The frame goes to a pipe with room (the server read everything before): one write.
  await new Promise((resolve) => setTimeout(resolve, 200));
  // Wrapped: an async function returning the promise itself would wait for the answer.
  return { answer };
}

const PY_MAIN = "main.py";
const PY_GREETING = "zoo/greeting.py";
const PY_REPORT = "zoo/report.py";
const PY_CALL_LINE = '名前 = "😀"; message = greet(名前)';

/** The python harness, a definition request on greet's call in main.py, and where it lands. */
async function pyrightSession() {
  const h = await harness("python");
  const call = await h.ws.within(PY_MAIN, PY_CALL_LINE, "greet");
  const definition = { action: "definition", file: PY_MAIN, line: call.line, column: call.column };
  const expected: Location[] = [await h.ws.within(PY_GREETING, "def greet(", "greet")];
  return { h, definition, expected };
}

Deno.test("pyright killed with SIGKILL between queries: the very next query restarts it and answers as before", async () => {
  const { h, definition, expected } = await pyrightSession();
  try {
    assert.deepEqual(locationsOf(await h.ok(definition)), expected);
    await h.ok({ action: "hover", file: PY_REPORT, line: 1, column: 1 });
    const first = await onlyServer(h);
    assert.equal(first.state, "ready");
    assert.equal(first.restarts, 0);
    assert.equal(first.openDocuments, 2);

    await killServerBetweenQueries(first.pid!);
    // The agent does not know the server died: its next query must simply work.
    assert.deepEqual(locationsOf(await h.ok(definition)), expected);
    const second = await onlyServer(h);
    assert.equal(second.state, "ready");
    assert.equal(second.restarts, 1);
    assert.notEqual(second.pid, first.pid);
    assert.equal(second.openDocuments, 2, "zoo/report.py was not opened again");
  } finally {
    await h.close();
  }
});

Deno.test("pyright killed with SIGKILL: status shows the crash, and the next query restarts it with its documents open again", async () => {
  const { h, definition, expected } = await pyrightSession();
  try {
    assert.deepEqual(locationsOf(await h.ok(definition)), expected);
    await h.ok({ action: "hover", file: PY_REPORT, line: 1, column: 1 });
    const first = await onlyServer(h);
    assert.equal(first.openDocuments, 2);

    await killServer(first.pid!);
    const crashed = await waitCrashed(h);
    assert.equal(crashed.reason, "killed by SIGKILL");
    assert.equal(crashed.restarts, 0);
    assert.equal(crashed.pid, undefined);

    assert.deepEqual(locationsOf(await h.ok(definition)), expected);
    const second = await onlyServer(h);
    assert.equal(second.state, "ready");
    assert.equal(second.restarts, 1);
    assert.notEqual(second.pid, first.pid);
    assert.ok(alive(second.pid!));
    assert.equal(second.openDocuments, 2, "zoo/report.py was not opened again");
  } finally {
    await h.close();
  }
});

Deno.test("a pyright query in flight when the server is killed answers SERVER_EXITED, and the next query works", async () => {
  const { h, definition, expected } = await pyrightSession();
  let frozen: number | undefined;
  try {
    assert.deepEqual(locationsOf(await h.ok(definition)), expected);
    const first = await onlyServer(h);
    frozen = first.pid!;
    const [def] = expected;
    const references = {
      action: "references",
      file: PY_GREETING,
      line: def.line,
      column: def.column,
    };
    const inFlight = await sendToFrozenServer(
      h,
      frozen,
      references,
      "textDocument/references",
    );
    await killServer(frozen);
    const message = expectError(
      await inFlight.answer,
      "SERVER_EXITED",
      references,
    );
    assert.match(message, /pyright/);
    assert.match(message, /SIGKILL/);

    assert.deepEqual(locationsOf(await h.ok(definition)), expected);
    const second = await onlyServer(h);
    assert.equal(second.state, "ready");
    assert.equal(second.restarts, 1);
    assert.notEqual(second.pid, first.pid);
    // And references, the request that failed, now answer in full.
    const again = await h.ok(references);
    assert.equal(locationsOf(again).length, 8);
  } finally {
    if (frozen !== undefined && alive(frozen)) Deno.kill(frozen, "SIGKILL");
    await h.close();
  }
});

Deno.test("typescript-language-server killed with SIGKILL recovers, and no process of its groups outlives the session", async (t) => {
  const h = await harness("typescript");
  let closed = false;
  const groups: number[] = [];
  try {
    const { definition, expected } = await formatPriceDefinition(h.ws);
    assert.deepEqual(locationsOf(await h.ok(definition)), expected);
    await h.ok({ action: "hover", file: "src/models.ts", query: "Product" });
    const first = await onlyServer(h);
    assert.equal(first.state, "ready");
    assert.equal(first.openDocuments, 2);
    const firstGroup = first.pid!;
    groups.push(firstGroup);
    // The server leads its own group (lspgate spawns it detached), with its tsservers in it.
    assert.equal(procStat(firstGroup)?.pgrp, firstGroup);
    assert.ok(
      groupMembers(firstGroup).length >= 2,
      `no tsserver in group ${firstGroup}: ${groupMembers(firstGroup)}`,
    );

    await t.step("a query in flight at the kill answers SERVER_EXITED", async () => {
      const def = expected[0];
      const references = {
        action: "references",
        file: def.file,
        line: def.line,
        column: def.column,
      };
      const inFlight = await sendToFrozenServer(
        h,
        firstGroup,
        references,
        "textDocument/references",
      );
      await killServer(firstGroup);
      const message = expectError(
        await inFlight.answer,
        "SERVER_EXITED",
        references,
      );
      assert.match(message, /typescript/);
      assert.match(message, /SIGKILL/);
    });

    await t.step("the tsservers of the killed server's group are killed with it", async () => {
      await waitUntil(
        () => groupMembers(firstGroup).length === 0,
        `group ${firstGroup} to empty (left: ${groupMembers(firstGroup)})`,
      );
    });

    await t.step("the next query restarts it and answers as before", async () => {
      assert.deepEqual(locationsOf(await h.ok(definition)), expected);
      const second = await onlyServer(h);
      assert.equal(second.state, "ready");
      assert.equal(second.restarts, 1);
      assert.notEqual(second.pid, firstGroup);
      // index.ts, models.ts, and format.ts, opened by the references that failed.
      assert.equal(second.openDocuments, 3, "the documents were not all opened again");
      groups.push(second.pid!);
    });

    await t.step("killed between queries, it is restarted a second time", async () => {
      const pid = (await onlyServer(h)).pid!;
      await killServer(pid);
      const crashed = await waitCrashed(h);
      assert.equal(crashed.reason, "killed by SIGKILL");
      assert.deepEqual(locationsOf(await h.ok(definition)), expected);
      const third = await onlyServer(h);
      assert.equal(third.restarts, 2);
      assert.notEqual(third.pid, pid);
      groups.push(third.pid!);
      await waitUntil(() => groupMembers(pid).length === 0, `group ${pid} to empty`);
      assert.ok(groupMembers(third.pid!).length >= 2, "the new server has no tsserver");
    });

    await t.step("after close(), no process of any of its groups is left", async () => {
      closed = true;
      await h.close();
      for (const group of groups) {
        await waitUntil(
          () => groupMembers(group).length === 0,
          `group ${group} to empty after close (left: ${groupMembers(group)})`,
          5_000,
        );
      }
    });
  } finally {
    if (!closed) await h.close();
  }
});

Deno.test("typescript-language-server whose tsserver died is stopped, and the next query is answered by a new one", async () => {
  // It stays up when its tsserver dies (an OOM kill), and answered "No definition found",
  // complete, to everything after (a helper's find).
  const h = await harness("typescript");
  try {
    const { definition, expected } = await formatPriceDefinition(h.ws);
    assert.deepEqual(locationsOf(await h.ok(definition)), expected);
    const first = await onlyServer(h);
    const tsservers = groupMembers(first.pid!).filter((pid) => {
      try {
        return Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes("tsserver");
      } catch {
        return false;
      }
    });
    assert.ok(tsservers.length >= 1, "no tsserver in the server's group");
    for (const pid of tsservers) Deno.kill(pid, "SIGKILL");
    const crashed = await waitCrashed(h);
    assert.match(
      crashed.reason ?? "",
      /it logged "[^"]*\[tsserver\] Exited\. Code: null\. Signal: SIGKILL"/,
    );
    assert.deepEqual(locationsOf(await h.ok(definition)), expected);
    const second = await onlyServer(h);
    assert.equal(second.restarts, 1);
    assert.notEqual(second.pid, first.pid);
  } finally {
    await h.close();
  }
});

Deno.test("a program whose session's server crashed still exits after session.close()", async () => {
  // A library user's program: it opens a session, its server crashes and is restarted, it
  // closes the session and ends its main module. Nothing lspgate started may keep it alive.
  const script = `
    import { harness } from ${JSON.stringify(new URL("../helpers/session.ts", import.meta.url))};
    const h = await harness("python");
    await h.ok({ action: "hover", file: "main.py", line: 1, column: 1 });
    const status = await h.ok({ action: "status" });
    const pid = status.details.servers[0].pid;
    Deno.kill(pid, "SIGKILL");
    for (;;) {
      const now = await h.ok({ action: "status" });
      if (now.details.servers[0].state === "crashed") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await h.ok({ action: "hover", file: "main.py", line: 1, column: 1 });
    await h.close();
    console.log("closed");
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--config", `${REPO_ROOT}deno.json`, script],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exited = await Promise.race([
    child.status.then(() => true),
    new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), 20_000)),
  ]);
  clearTimeout(timer);
  if (!exited) child.kill("SIGKILL");
  const status = await child.status;
  const [out, err] = await Promise.all([stdout, stderr]);
  assert.equal(out.trim(), "closed", err);
  assert.ok(
    exited,
    "still running 20 s after session.close(): something of the crashed server's client " +
      "(its Worker) keeps the program alive",
  );
  assert.equal(status.code, 0, err);
});
