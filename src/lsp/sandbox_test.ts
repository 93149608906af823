// The sandbox backends on a probe: bubblewrap (wrapCommand, sandboxCommand) and Landlock
// (wrapLandlock, the launcher), what each confines and what it lets through, and how one is
// chosen. Real language servers under bubblewrap are sandbox_servers_test.ts's.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  chooseSandbox,
  landlockSupport,
  SANDBOX_HOME,
  sandboxCommand,
  type SandboxSpec,
  wrapCommand,
  wrapLandlock,
  type WrappedCommand,
} from "./sandbox.ts";
import { dirname, NO_BWRAP, requireBwrap, tempDir } from "./sandbox_fixture.ts";

const FAKES = Deno.realPathSync(fileURLToPath(new URL("../../tests/fakes", import.meta.url)));

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

interface ProbeReport {
  writeWorkspace: { ok: boolean; error?: string; message?: string };
  readCanaries: { ok: boolean; error?: string; message?: string }[];
  connect: { ok: boolean; error?: string; message?: string };
  writeHome: { ok: boolean; value?: string };
  pid: number;
  hostPidVisible: boolean;
  processCount: number;
  secretEnv: string | null;
  home: string | null;
}

const SECRET_ENV = "LSPGATE_TEST_SECRET";

/** Runs tests/fakes/escape_probe.ts in a sandbox over `workspace` while a listener waits on 127.0.0.1. */
async function runProbe(
  workspace: string,
  workspaceWritable: boolean,
  wrap: (command: string[], spec: SandboxSpec) => Promise<WrappedCommand> = wrapCommand,
) {
  const outside = await tempDir("lspgate-canary-");
  const canary = `${outside}/canary.txt`;
  await Deno.writeTextFile(canary, "host secret");
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = listener.accept().then((conn) => {
    conn.close();
    return true;
  }, () => false);
  const writeTarget = `${workspace}/escape.txt`;
  const spec: SandboxSpec = {
    workspace,
    workspaceWritable,
    // Deno itself, for the probe (bubblewrap shows /usr whole, where it lives here, anyway).
    readOnlyPaths: [FAKES, dirname(Deno.realPathSync(Deno.execPath()))],
  };
  const input = {
    writeTarget,
    // Another temp dir, a secret of the host's /etc, and the repo above the bound fakes folder.
    canaries: [canary, "/etc/shadow", `${dirname(dirname(FAKES))}/deno.json`],
    port: listener.addr.port,
    hostPid: Deno.pid,
    secretEnv: SECRET_ENV,
  };
  const deno = Deno.realPathSync(Deno.execPath());
  const wrapped = await wrap(
    [deno, "run", "-A", "--no-config", `${FAKES}/escape_probe.ts`, JSON.stringify(input)],
    spec,
  );
  Deno.env.set(SECRET_ENV, "hunter2");
  try {
    const out = await new Deno.Command(wrapped.command[0], {
      args: wrapped.command.slice(1),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.ok(out.success, `probe exited with ${out.code}: ${stderr}`);
    const report: ProbeReport = JSON.parse(stdout.trim().split("\n").at(-1)!);
    return { report, writeTarget, connected: await settle(listener, accepted), wrapped };
  } finally {
    await wrapped.cleanup?.();
    Deno.env.delete(SECRET_ENV);
    try {
      listener.close();
    } catch {
      // Already closed by settle().
    }
    await Deno.remove(outside, { recursive: true });
  }
}

/** Closes the listener and says whether anything ever connected to it. */
async function settle(listener: Deno.Listener, accepted: Promise<boolean>): Promise<boolean> {
  listener.close();
  return await accepted;
}

Deno.test({
  name: "bwrapAvailable() finds a working bubblewrap (LSPGATE_NO_BWRAP=1 skips)",
  ignore: NO_BWRAP,
  fn: requireBwrap,
});

Deno.test({
  name:
    "wrapCommand() confines a probe: read-only workspace, no outside file, no network, own PIDs",
  ignore: NO_BWRAP,
  async fn() {
    await requireBwrap();
    const workspace = await tempDir("lspgate-ws-");
    try {
      const { report, writeTarget, connected } = await runProbe(workspace, false);

      assert.equal(report.writeWorkspace.ok, false);
      assert.match(report.writeWorkspace.message ?? "", /Read-only file system \(os error 30\)/);
      assert.equal(await exists(writeTarget), false, "the write reached the host");

      assert.deepEqual(report.readCanaries.map((r) => r.error), [
        "NotFound",
        "NotFound",
        "NotFound",
      ]);

      // bwrap brings up a loopback of the sandbox's own, where nothing listens.
      assert.equal(report.connect.ok, false);
      assert.equal(report.connect.error, "ConnectionRefused");
      assert.equal(connected, false, "the host listener received a connection");

      // bwrap is PID 1 of the new namespace and the probe its child.
      assert.ok(report.pid <= 3, `probe pid ${report.pid} is not from a fresh PID namespace`);
      assert.equal(report.hostPidVisible, false);
      assert.ok(report.processCount <= 3, `probe sees ${report.processCount} processes`);

      assert.equal(report.secretEnv, null, "host environment leaked into the sandbox");
      assert.equal(report.home, SANDBOX_HOME);
      assert.equal(report.writeHome.ok, true);
      assert.equal(await exists(`${SANDBOX_HOME}/probe.txt`), false, "HOME is not private");
    } finally {
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name: "wrapCommand() lets the probe write a workspace marked writable",
  ignore: NO_BWRAP,
  async fn() {
    await requireBwrap();
    const workspace = await tempDir("lspgate-ws-");
    try {
      const { report, writeTarget, connected } = await runProbe(workspace, true);
      assert.equal(report.writeWorkspace.ok, true);
      assert.equal(await Deno.readTextFile(writeTarget), "escaped");
      // Everything else stays shut.
      assert.ok(report.readCanaries.every((r) => !r.ok));
      assert.equal(connected, false);
    } finally {
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "wrapCommand() binds realpaths at the same path, skips missing read-only paths, creates writable ones",
  ignore: NO_BWRAP,
  async fn() {
    await requireBwrap();
    const root = await tempDir("lspgate-paths-");
    try {
      await Deno.mkdir(`${root}/real`);
      await Deno.symlink(`${root}/real`, `${root}/link`);
      const { command } = await wrapCommand(["true"], {
        workspace: `${root}/link`,
        workspaceWritable: false,
        readOnlyPaths: [`${root}/missing`],
        writablePaths: [`${root}/cache/deno`],
      });
      const joined = command.join(" ");
      assert.ok(joined.includes(`--ro-bind ${root}/real ${root}/real`), joined);
      assert.ok(joined.includes(`--chdir ${root}/real`), joined);
      assert.ok(!joined.includes(`${root}/missing`), joined);
      assert.ok(joined.includes(`--bind ${root}/cache/deno ${root}/cache/deno`), joined);
      assert.ok((await Deno.stat(`${root}/cache/deno`)).isDirectory);
      assert.deepEqual(command.slice(command.indexOf("--")), ["--", "true"]);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

// --- Landlock ---------------------------------------------------------------

/** Landlock is in every kernel these tests run on (5.13+, enabled): its absence fails loudly. */
async function requireLandlock(): Promise<number> {
  const found = await landlockSupport();
  assert.ok(found.abi >= 1, `Landlock is not usable here: ${found.reason}`);
  return found.abi;
}

Deno.test("wrapLandlock() confines a probe: read-only workspace, no outside file, no TCP, private HOME", async () => {
  const abi = await requireLandlock();
  const workspace = await tempDir("lspgate-ws-");
  try {
    const { report, writeTarget, connected, wrapped } = await runProbe(
      workspace,
      false,
      wrapLandlock,
    );
    assert.equal(report.writeWorkspace.ok, false);
    assert.match(report.writeWorkspace.message ?? "", /Permission denied \(os error 13\)/);
    assert.equal(await exists(writeTarget), false, "the write reached the workspace");

    // Landlock denies what it does not hide: each read is refused, none succeeds.
    assert.deepEqual(report.readCanaries.map((r) => r.error), [
      "PermissionDenied",
      "PermissionDenied",
      "PermissionDenied",
    ]);

    if (abi >= 4) {
      assert.equal(report.connect.ok, false);
      assert.equal(report.connect.error, "PermissionDenied", JSON.stringify(report.connect));
      assert.equal(connected, false, "the host listener received a connection");
    }

    assert.equal(report.secretEnv, null, "host environment leaked into the sandbox");
    assert.equal(report.home, wrapped.home);
    assert.match(report.home ?? "", /\/sandbox\/\d+-[0-9a-f]{8}\/home$/);
    assert.equal(report.writeHome.ok, true, JSON.stringify(report.writeHome));
    // What Landlock does not do, as status says: no PID namespace.
    assert.equal(report.hostPidVisible, true);
    // The scratch folder went with the server (runProbe ran cleanup()).
    assert.equal(await exists(dirname(wrapped.home!)), false, "the scratch folder was left");
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("control: the same probe unconfined reads the canaries and connects (what Landlock stops)", async () => {
  const workspace = await tempDir("lspgate-ws-");
  try {
    const { report, connected } = await runProbe(
      workspace,
      false,
      (command) => Promise.resolve({ command, sandboxed: false }),
    );
    assert.equal(report.readCanaries[0].ok, true);
    assert.equal(report.connect.ok, true, JSON.stringify(report.connect));
    assert.equal(connected, true);
    assert.equal(report.writeWorkspace.ok, true);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("wrapLandlock() lets the probe write a workspace marked writable, and nothing else", async () => {
  await requireLandlock();
  const workspace = await tempDir("lspgate-ws-");
  try {
    const { report, writeTarget, connected } = await runProbe(workspace, true, wrapLandlock);
    assert.equal(report.writeWorkspace.ok, true);
    assert.equal(await Deno.readTextFile(writeTarget), "escaped");
    assert.ok(report.readCanaries.every((r) => !r.ok));
    assert.equal(connected, false);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("wrapLandlock() refuses to allow / and a missing workspace", async () => {
  await requireLandlock();
  const workspace = await tempDir("lspgate-ws-");
  try {
    await assert.rejects(
      wrapLandlock(["true"], { workspace, workspaceWritable: false, readOnlyPaths: ["/"] }),
      { name: "LspGateError", code: "INVALID_INPUT" },
    );
    await assert.rejects(
      wrapLandlock(["true"], {
        workspace: `${workspace}/gone`,
        workspaceWritable: false,
        readOnlyPaths: [],
      }),
      { name: "LspGateError", code: "FILE_NOT_FOUND" },
    );
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("the launcher sweeps scratch folders of a dead lspgate of its PID namespace, and only those", async () => {
  await requireLandlock();
  const workspace = await tempDir("lspgate-ws-");
  const namespace = Deno.readLinkSync("/proc/self/ns/pid");
  // A PID that was alive a moment ago and is not any more.
  const gone = new Deno.Command("true").spawn();
  await gone.status;
  const first = await wrapLandlock(["/bin/true"], {
    workspace,
    workspaceWritable: false,
    readOnlyPaths: [],
  });
  const parent = dirname(dirname(first.home!));
  const folders = {
    dead: `${parent}/${gone.pid}-0badf00d`,
    alive: `${parent}/${Deno.pid}-0badf00e`,
    otherNamespace: `${parent}/${gone.pid}-0badf00f`,
  };
  try {
    for (const [name, folder] of Object.entries(folders)) {
      await Deno.mkdir(`${folder}/home`, { recursive: true });
      await Deno.writeTextFile(
        `${folder}/owner`,
        name === "otherNamespace" ? "pid:[1]" : namespace,
      );
    }
    const out = await new Deno.Command(first.command[0], { args: first.command.slice(1) }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    assert.equal(await exists(folders.dead), false, "a dead lspgate's scratch folder was left");
    assert.equal(await exists(folders.alive), true, "a live lspgate's scratch folder was removed");
    assert.equal(await exists(folders.otherNamespace), true, "another namespace's was removed");
    assert.equal(await Deno.readTextFile(`${dirname(first.home!)}/owner`), namespace);
  } finally {
    await first.cleanup!();
    for (const folder of Object.values(folders)) {
      await Deno.remove(folder, { recursive: true }).catch(() => {});
    }
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("chooseSandbox(): auto without bubblewrap is Landlock and says why; none and forced modes", async () => {
  const abi = await requireLandlock();
  const auto = await chooseSandbox("auto", { bwrap: "/nonexistent/bwrap" });
  assert.equal(auto.backend, "landlock");
  assert.equal(auto.landlockAbi, abi);
  assert.match(auto.label, new RegExp(`^yes \\(Landlock ABI ${abi}: `));
  assert.match(auto.label, /not enforced: no PID namespace/);
  assert.match(auto.label, /bubblewrap not used: bubblewrap is not installed/);
  const forced = await chooseSandbox("landlock");
  assert.equal(forced.backend, "landlock");
  assert.equal(forced.bwrapReason, undefined, "landlock mode does not probe bubblewrap");
  const none = await chooseSandbox("none");
  assert.equal(none.backend, "none");
  assert.match(none.label, /^no: servers are NOT confined/);
  const bwrap = await chooseSandbox("bwrap", { bwrap: "/nonexistent/bwrap" });
  assert.equal(bwrap.usable, false);
  assert.match(bwrap.label, /^no server starts: sandbox bwrap, but bubblewrap is not installed/);
});

Deno.test({
  name: "chooseSandbox(): auto is bubblewrap where it can create namespaces (no Landlock layered)",
  ignore: NO_BWRAP,
  async fn() {
    await requireBwrap();
    const auto = await chooseSandbox("auto");
    assert.equal(auto.backend, "bwrap");
    assert.match(auto.label, /^yes \(bubblewrap/);
  },
});

/** The PIDs of every descendant of `pid`, read from the host's /proc. */
function descendants(pid: number): number[] {
  const children: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      // Field 4 is the parent PID; field 2, the command, may hold spaces.
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === pid) children.push(Number(entry.name));
    } catch {
      // The process ended while we looked.
    }
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

Deno.test({
  name: "killing the bwrap process ends every process in the sandbox",
  ignore: NO_BWRAP,
  async fn() {
    await requireBwrap();
    const workspace = await tempDir("lspgate-ws-");
    try {
      const { command } = await wrapCommand(
        ["sh", "-c", "sleep 600 & sleep 600 & echo started; wait"],
        { workspace, workspaceWritable: false, readOnlyPaths: [] },
      );
      const child = new Deno.Command(command[0], {
        args: command.slice(1),
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const reader = child.stdout.getReader();
      await reader.read();
      const inside = descendants(child.pid);
      // bwrap's init, sh and two sleeps.
      assert.ok(inside.length >= 3, `found only ${inside}`);
      child.kill("SIGTERM");
      await child.status;
      await reader.cancel();
      // --die-with-parent kills the sandbox's init, and with it its PID namespace.
      for (let i = 0; i < 50 && inside.some(alive); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(inside.filter(alive), [], "processes outlived the sandbox");
    } finally {
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test("sandboxCommand() with mode none returns the command unchanged", async () => {
  const spec = { workspace: "/nonexistent", workspaceWritable: false, readOnlyPaths: [] };
  assert.deepEqual(await sandboxCommand("none", ["pyright-langserver", "--stdio"], spec), {
    command: ["pyright-langserver", "--stdio"],
    sandboxed: false,
  });
});

Deno.test({
  name: "sandboxCommand() with mode auto wraps the command where bubblewrap works",
  ignore: NO_BWRAP,
  async fn() {
    await requireBwrap();
    const workspace = await tempDir("lspgate-ws-");
    try {
      const spec = { workspace, workspaceWritable: false, readOnlyPaths: [] };
      const wrapped = await sandboxCommand("auto", ["true"], spec);
      assert.equal(wrapped.sandboxed, true);
      assert.equal(wrapped.command[0], "bwrap");
      assert.equal(wrapped.home, SANDBOX_HOME);
    } finally {
      await Deno.remove(workspace, { recursive: true });
    }
  },
});

Deno.test({
  name: "wrapCommand() refuses to bind / and a missing workspace",
  ignore: NO_BWRAP,
  async fn() {
    await requireBwrap();
    const workspace = await tempDir("lspgate-ws-");
    try {
      await assert.rejects(
        wrapCommand(["true"], { workspace, workspaceWritable: false, readOnlyPaths: ["/"] }),
        { name: "LspGateError", code: "INVALID_INPUT" },
      );
      await assert.rejects(
        wrapCommand(["true"], {
          workspace: `${workspace}/gone`,
          workspaceWritable: false,
          readOnlyPaths: [],
        }),
        { name: "LspGateError", code: "FILE_NOT_FOUND" },
      );
    } finally {
      await Deno.remove(workspace, { recursive: true });
    }
  },
});
