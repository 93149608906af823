import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonConnection, DaemonGoneError } from "./client.ts";
import { type ConnectionHandler, DaemonAlreadyRunning, type Hello, runDaemon } from "./server.ts";
import { daemonSocket, socketFolder } from "./socket_path.ts";
import { attach } from "./start.ts";
import type { LspGateConfig } from "../config_schema.ts";

/** A daemon handler that echoes requests with the connection's role; "slow" waits to be closed. */
function fakeHandler() {
  const closed: string[] = [];
  let connections = 0;
  let handlerClosed = false;
  return {
    closed,
    get handlerClosed() {
      return handlerClosed;
    },
    connect(hello: Hello): ConnectionHandler {
      const name = `c${++connections}`;
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => release = resolve);
      return {
        granted: {
          role: hello.role,
          allowMutations: hello.allowMutations && hello.role === "main",
        },
        async handle(raw: unknown, progress: (line: unknown) => void) {
          const request = raw as { id: unknown; action?: string };
          if (request.action === "slow") {
            progress({ title: "waiting" });
            await released;
            return { id: request.id, ok: false, error: { code: "CANCELLED", message: "closed" } };
          }
          return {
            id: request.id,
            ok: true,
            details: { role: hello.role, action: request.action },
          };
        },
        close() {
          closed.push(name);
          release();
        },
      };
    },
    status: () => ({ connections }),
    close() {
      handlerClosed = true;
      return Promise.resolve();
    },
  };
}

async function tempSocket(): Promise<{ dir: string; path: string }> {
  const dir = await Deno.makeTempDir({ prefix: "lspgate_daemon_" });
  await Deno.chmod(dir, 0o700);
  return { dir, path: join(dir, "d.sock") };
}

Deno.test("a daemon answers each connection with its own role and restores the caller's ids", async () => {
  const { dir, path } = await tempSocket();
  const handler = fakeHandler();
  const daemon = await runDaemon({ socketPath: path, handler, idleMs: 0 });
  try {
    const main = await DaemonConnection.open(path, { role: "main", allowMutations: true });
    const sub = await DaemonConnection.open(path, { role: "subagent", allowMutations: true });
    assert.equal(main.granted.allowMutations, true);
    assert.equal(sub.granted.allowMutations, false);
    // Both use id 1: each gets its own answer.
    const [a, b] = await Promise.all([
      main.request({ id: 1, action: "hover" }),
      sub.request({ id: 1, action: "definition" }),
    ]);
    assert.deepEqual(a, { id: 1, ok: true, details: { role: "main", action: "hover" } });
    assert.deepEqual(b, { id: 1, ok: true, details: { role: "subagent", action: "definition" } });
    main.close();
    sub.close();
  } finally {
    await daemon.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("garbage, an oversized line and a vanished peer: errors or a drop, and the daemon keeps serving", async () => {
  const { dir, path } = await tempSocket();
  const handler = fakeHandler();
  const daemon = await runDaemon({ socketPath: path, handler, idleMs: 0, maxLineChars: 1024 });
  try {
    // Garbage before hello, then a hello: an error line, then served.
    const raw = await Deno.connect({ transport: "unix", path });
    const enc = new TextEncoder();
    await raw.write(
      enc.encode('not json\n{"hello": {"role": "main"}}\n{"id": 5, "action": "x"}\n'),
    );
    const lines = await readSome(raw, 3);
    assert.equal(lines[0].error?.code, "INVALID_JSON");
    assert.equal((lines[1].hello as { ok: boolean }).ok, true);
    assert.equal(lines[2].id, 5);
    // An oversized line: an error line, and this connection is dropped.
    await raw.write(enc.encode("x".repeat(4096) + "\n"));
    const [tooLong] = await readSome(raw, 1);
    assert.equal(tooLong.error?.code, "INVALID_INPUT");
    assert.deepEqual(await readSome(raw, 1), []);
    raw.close();

    // A peer that vanishes with a request in flight has it cancelled.
    const leaver = await DaemonConnection.open(path, { role: "main", allowMutations: false });
    const progress: unknown[] = [];
    const slow = leaver.request({ id: 9, action: "slow" }, (p) => progress.push(p));
    await waitFor(() => progress.length === 1);
    leaver.close();
    assert.equal((await slow).ok, false);
    await waitFor(() => handler.closed.length >= 2);

    // Others are still served.
    const next = await DaemonConnection.open(path, { role: "subagent", allowMutations: false });
    assert.equal((await next.request({ id: 1, action: "hover" })).ok, true);
    next.close();
  } finally {
    await daemon.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a stale socket is replaced, a live one refuses a second daemon, idle stop removes the socket", async () => {
  const { dir, path } = await tempSocket();
  // A socket file whose daemon died without removing it.
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `Deno.listen({transport: "unix", path: ${
        JSON.stringify(path)
      }}); setTimeout(() => {}, 60000)`,
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  await waitFor(async () => await exists(path));
  child.kill("SIGKILL");
  await child.status;
  assert.ok(await exists(path));

  const handler = fakeHandler();
  const daemon = await runDaemon({ socketPath: path, handler, idleMs: 150 });
  try {
    await assert.rejects(
      runDaemon({ socketPath: path, handler: fakeHandler(), idleMs: 0 }),
      DaemonAlreadyRunning,
    );
    const info = await Deno.stat(path);
    assert.equal((info.mode ?? 0) & 0o777, 0o600);
    const conn = await DaemonConnection.open(path, { role: "main", allowMutations: false });
    assert.equal((await conn.request({ id: 1, action: "a" })).ok, true);
    conn.close();
    // No connection and nothing in flight: it stops by itself.
    await daemon.done;
    assert.equal(handler.handlerClosed, true);
    assert.equal(await exists(path), false);
  } finally {
    await daemon.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a daemon whose socket is removed (its runtime folder deleted) ends: nobody can reach it again", async () => {
  const { dir, path } = await tempSocket();
  const handler = fakeHandler();
  const daemon = await runDaemon({ socketPath: path, handler, idleMs: 0 });
  try {
    await Deno.remove(path);
    // Checked every 5 s at most: a hang guard, not a timing assertion.
    await waitFor(() => handler.handlerClosed, 15_000);
    await daemon.done;
  } finally {
    await daemon.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the socket folder is private to this user, and the daemon's socket is one fixed path in it", async () => {
  const runtime = await Deno.makeTempDir({ prefix: "lspgate_runtime_" });
  const before = Deno.env.get("XDG_RUNTIME_DIR");
  Deno.env.set("XDG_RUNTIME_DIR", runtime);
  try {
    const folder = await socketFolder();
    assert.equal(folder, join(runtime, "lspgate"));
    assert.equal(((await Deno.stat(folder)).mode ?? 0) & 0o777, 0o700);
    assert.equal(await daemonSocket(), join(runtime, "lspgate", "daemon.sock"));
    // A folder open to others is refused, never used.
    await Deno.chmod(folder, 0o777);
    await assert.rejects(socketFolder(), /not a private folder/);
  } finally {
    if (before === undefined) Deno.env.delete("XDG_RUNTIME_DIR");
    else Deno.env.set("XDG_RUNTIME_DIR", before);
    await Deno.remove(runtime, { recursive: true });
  }
});

async function readSome(
  conn: Deno.Conn,
  count: number,
): Promise<{ id?: unknown; hello?: unknown; error?: { code: string } }[]> {
  const lines: { id?: unknown; hello?: unknown; error?: { code: string } }[] = [];
  let text = "";
  const buffer = new Uint8Array(65536);
  while (lines.length < count) {
    const n = await conn.read(buffer);
    if (n === null) break;
    text += new TextDecoder().decode(buffer.subarray(0, n));
    let cut: number;
    while ((cut = text.indexOf("\n")) !== -1 && lines.length < count) {
      lines.push(JSON.parse(text.slice(0, cut)));
      text = text.slice(cut + 1);
    }
  }
  return lines;
}

async function waitFor(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("a daemon that closes the connection before answering the hello is gone, not a refusal", async () => {
  // What a killed daemon's socket can do while its process is still being torn down: take the
  // connection, then close it. attach() finds no daemon there (attachOrStart starts a new one);
  // before, it threw and the client answered SERVER_EXITED a second time.
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_gone_" }));
  const root = await Deno.makeTempDir({ prefix: "lspgate_gone_root_" });
  const before = Deno.env.get("XDG_RUNTIME_DIR");
  Deno.env.set("XDG_RUNTIME_DIR", runtime);
  const path = await daemonSocket();
  assert.ok(path.startsWith(runtime + "/"), path);
  const listener = Deno.listen({ transport: "unix", path });
  const closer = (async () => {
    for await (const conn of listener) conn.close();
  })();
  const hello = { role: "main" as const, allowMutations: false, client: "test" };
  try {
    await assert.rejects(DaemonConnection.open(path, hello), DaemonGoneError);
    const target = { root, config: {} as LspGateConfig, sandbox: "none", trust: false };
    assert.equal(await attach(target, hello), undefined);
  } finally {
    listener.close();
    await closer.catch(() => {});
    if (before === undefined) Deno.env.delete("XDG_RUNTIME_DIR");
    else Deno.env.set("XDG_RUNTIME_DIR", before);
    await Deno.remove(runtime, { recursive: true });
    await Deno.remove(root, { recursive: true });
  }
});
