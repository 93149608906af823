// A server under Landlock that tries to get out (tests/fakes/exfil_server.ts, configured as the
// TypeScript server) is refused: its TCP connect to a listener on 127.0.0.1 (ABI 4+), its connect to
// a UNIX socket file outside (as lspgate's daemon listens on: the launcher's seccomp filter), its
// signal to lspgate (ABI 6+), its read of a file outside the root and its write beside it. The same server
// unconfined gets through each time, so the confined test would see an escape.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { sandboxFor } from "../../src/frontends/main.ts";
import { landlockSupport } from "../../src/lsp/sandbox.ts";
import { hostileRepo } from "./hostile.ts";

const EXFIL = fileURLToPath(new URL("../fakes/exfil_server.ts", import.meta.url));

interface Attempt {
  ok: boolean;
  error?: string;
  message?: string;
}

async function escapeReport(sandbox: "landlock" | "none") {
  const repo = await hostileRepo({ "a.ts": "export const a = 1;\n", "tsconfig.json": "{}\n" });
  const secret = join(repo.outside, "secret.txt");
  await Deno.writeTextFile(secret, "outside secret");
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const received = listener.accept().then((conn) => new Response(conn.readable).text(), () => "");
  const socket = join(repo.outside, "daemon.sock");
  const unix = Deno.listen({ transport: "unix", path: socket });
  const receivedUnix = unix.accept().then((conn) => new Response(conn.readable).text(), () => "");
  const plan = {
    port: listener.addr.port,
    socket,
    pid: Deno.pid,
    secret,
    drop: join(repo.outside, "dropped.txt"),
  };
  const config = defaultConfig();
  config.servers = {
    typescript: {
      command: [Deno.execPath(), "run", "-A", "--no-config", EXFIL, JSON.stringify(plan)],
    },
  };
  // The fake announces no readiness: do not wait the TypeScript server's 15 s for it.
  config.readyTimeoutMs = 500;
  // The fake's folder, read-only, as a user's server install would be.
  config.readOnlyRoots = [dirname(EXFIL)];
  const flags = {
    root: repo.root,
    role: "subagent" as const,
    allowMutations: false,
    config,
    sandbox,
    trust: false,
    json: false,
  };
  const { wrap, label, sandboxed, backend } = await sandboxFor(flags);
  assert.equal(backend, sandbox, label);
  const session = await Session.open({
    root: repo.root,
    role: "subagent",
    allowMutations: false,
    adapters: ADAPTERS,
    config,
    wrap,
    sandboxLabel: label,
    sandboxed,
    sandboxBackend: backend,
  });
  try {
    const hover = await session.handle({
      id: 1,
      action: "hover",
      file: "a.ts",
      line: 1,
      column: 14,
    });
    assert.equal(hover.ok, true, JSON.stringify(hover));
    const details = (hover as { details: Record<string, unknown> }).details;
    assert.equal(details.sandboxBackend, sandbox);
    const report = JSON.parse(String(details.text)) as Record<string, Attempt>;
    listener.close();
    unix.close();
    return {
      report,
      received: await received,
      receivedUnix: await receivedUnix,
      dropped: await exists(plan.drop),
    };
  } finally {
    await session.close();
    for (const open of [listener, unix]) {
      try {
        open.close();
      } catch {
        // Closed above.
      }
    }
    await Deno.remove(repo.base, { recursive: true });
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

Deno.test("a server under Landlock cannot connect over TCP or to a UNIX socket file, signal lspgate, read or write outside", async () => {
  const { abi } = await landlockSupport();
  assert.ok(abi >= 1, "Landlock is not usable here");
  const { report, received, receivedUnix, dropped } = await escapeReport("landlock");
  assert.equal(report.unix.ok, false, JSON.stringify(report.unix));
  assert.equal(report.unix.error, "PermissionDenied");
  assert.equal(receivedUnix, "", "the UNIX socket received data");
  assert.equal(report.read.ok, false, JSON.stringify(report.read));
  assert.equal(report.read.error, "PermissionDenied");
  assert.equal(report.write.ok, false, JSON.stringify(report.write));
  assert.equal(dropped, false);
  if (abi >= 4) {
    assert.equal(report.connect.ok, false, JSON.stringify(report.connect));
    assert.equal(report.connect.error, "PermissionDenied");
    assert.equal(received, "", "the listener received data");
  }
  if (abi >= 6) {
    assert.equal(report.signal.ok, false, JSON.stringify(report.signal));
    assert.equal(report.signal.error, "PermissionDenied");
  }
});

Deno.test("control: the same server unconfined connects, signals, reads and writes outside", async () => {
  const { report, received, receivedUnix, dropped } = await escapeReport("none");
  assert.equal(report.unix.ok, true, JSON.stringify(report.unix));
  assert.equal(receivedUnix, "exfiltrated\n");
  assert.equal(report.connect.ok, true, JSON.stringify(report.connect));
  assert.equal(received, "exfiltrated\n");
  assert.equal(report.signal.ok, true, JSON.stringify(report.signal));
  assert.equal(report.read.ok, true, JSON.stringify(report.read));
  assert.equal(dropped, true);
});
