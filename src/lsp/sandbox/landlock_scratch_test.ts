// The Landlock launcher's own checks on the scratch folder's parents, for what changes after
// lspgate's check (wrapLandlock) and before the launcher runs: a runtime folder or `sandbox` folder
// that became a symlink, another user's, or open to others is refused (exit 126, PERMISSION_DENIED
// naming it), and nothing is made or swept in a link's target.
import assert from "node:assert/strict";
import { join } from "node:path";
import { landlockSupport, wrapLandlock } from "./landlock.ts";
import { LspClient } from "../client.ts";
import { LspGateError } from "../../errors.ts";
import { toFileUrl } from "../../servers/uri.ts";

/** Every path under `dir`, relative, sorted (what a link's target holds). */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of Deno.readDirSync(at)) {
      const path = join(at, entry.name);
      out.push(path.slice(dir.length + 1));
      if (entry.isDirectory) walk(path);
    }
  };
  walk(dir);
  return out.sort();
}

/** A folder named for a dead lspgate of this PID namespace: what the launcher's sweep removes. */
async function staleScratch(parent: string): Promise<string> {
  const gone = new Deno.Command("true").spawn();
  await gone.status;
  const folder = join(parent, `${gone.pid}-0badf00d`);
  await Deno.mkdir(join(folder, "home"), { recursive: true });
  await Deno.writeTextFile(join(folder, "owner"), Deno.readLinkSync("/proc/self/ns/pid"));
  return folder;
}

/** Runs `fn` with XDG_RUNTIME_DIR set to `runtime` (lspgate's runtime folder is `runtime/lspgate`). */
async function withRuntime(runtime: string, fn: () => Promise<void>): Promise<void> {
  const before = Deno.env.get("XDG_RUNTIME_DIR");
  Deno.env.set("XDG_RUNTIME_DIR", runtime);
  try {
    await fn();
  } finally {
    if (before === undefined) Deno.env.delete("XDG_RUNTIME_DIR");
    else Deno.env.set("XDG_RUNTIME_DIR", before);
  }
}

async function launch(command: string[], workspace: string) {
  const wrapped = await wrapLandlock(command, {
    workspace,
    workspaceWritable: false,
    readOnlyPaths: [],
  });
  return {
    home: wrapped.home!,
    run: async () => {
      const out = await new Deno.Command(wrapped.command[0], { args: wrapped.command.slice(1) })
        .output();
      return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
    },
  };
}

async function requireLandlock(): Promise<void> {
  const found = await landlockSupport();
  assert.ok(found.abi >= 1, `Landlock is not usable here: ${found.reason}`);
}

Deno.test("the launcher refuses a runtime or sandbox folder that turned into a link, another user's or an open one after lspgate checked it: nothing made or swept in the target", async () => {
  await requireLandlock();
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_scratch_" }));
  const workspace = await Deno.makeTempDir({ prefix: "lspgate_ws_" });
  const folder = join(runtime, "lspgate");
  const sandbox = join(folder, "sandbox");
  const victim = join(runtime, "victim");
  try {
    await Deno.chmod(runtime, 0o700);
    // The target holds a runtime folder of its own (0700, this user's), so that only the check on
    // the link itself can refuse it, and a dead lspgate's scratch folder the sweep would remove.
    await Deno.mkdir(join(victim, "sandbox"), { recursive: true, mode: 0o700 });
    await Deno.chmod(victim, 0o700);
    await staleScratch(victim);
    await staleScratch(join(victim, "sandbox"));
    const before = listing(victim);
    const cases: { name: string; path: string; plant: () => Promise<void>; why: RegExp }[] = [
      {
        name: "sandbox a link",
        path: sandbox,
        plant: () => Deno.symlink(victim, sandbox),
        why: /cannot be opened as a folder without following a link \(a symlink\?\)/,
      },
      {
        name: "the runtime folder a link",
        path: folder,
        plant: async () => {
          await Deno.remove(folder, { recursive: true });
          await Deno.symlink(victim, folder);
        },
        why: /cannot be opened as a folder without following a link \(a symlink\?\)/,
      },
      {
        name: "sandbox open to others",
        path: sandbox,
        plant: async () => {
          await Deno.mkdir(sandbox, { mode: 0o700 });
          await Deno.chmod(sandbox, 0o755);
        },
        why: /has mode 0755, not 0700/,
      },
      {
        name: "sandbox another user's",
        path: sandbox,
        plant: async () => {
          await Deno.mkdir(sandbox, { mode: 0o700 });
          await Deno.chown(sandbox, 65534, 65534);
        },
        why: /belongs to another user \(uid 65534\)/,
      },
    ];
    await withRuntime(runtime, async () => {
      for (const c of cases) {
        await Deno.remove(folder, { recursive: true }).catch(() => {});
        const launcher = await launch(["/bin/true"], workspace);
        // lspgate checked the folders (none there yet); they change before the launcher runs.
        await Deno.mkdir(folder, { mode: 0o700 }).catch(() => {});
        await c.plant();
        const out = await launcher.run();
        assert.equal(out.code, 126, `${c.name}: ${out.stderr}`);
        const said = `lspgate landlock launcher: PERMISSION_DENIED: ${c.path} `;
        assert.ok(out.stderr.startsWith(said), `${c.name}: ${out.stderr}`);
        assert.match(out.stderr, c.why, c.name);
        assert.deepEqual(listing(victim), before, `${c.name}: the target was changed`);
      }
    });
  } finally {
    await Deno.remove(runtime, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("the launcher sweeps inside the checked sandbox folder where a link lies above the runtime folder, and makes the server's HOME there", async () => {
  await requireLandlock();
  const real = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_scratch_" }));
  const workspace = await Deno.makeTempDir({ prefix: "lspgate_ws_" });
  // XDG_RUNTIME_DIR itself a link (as /var/run is): not lspgate's folder, so followed.
  const runtime = `${real}-link`;
  try {
    await Deno.chmod(real, 0o700);
    await Deno.symlink(real, runtime);
    const sandbox = join(real, "lspgate", "sandbox");
    await Deno.mkdir(sandbox, { recursive: true, mode: 0o700 });
    const stale = await staleScratch(sandbox);
    await withRuntime(runtime, async () => {
      const launcher = await launch(["/bin/sh", "-c", 'echo made > "$HOME/made"'], workspace);
      const out = await launcher.run();
      assert.equal(out.code, 0, out.stderr);
      assert.equal(await Deno.readTextFile(join(launcher.home, "made")), "made\n");
      const scratch = join(sandbox, launcher.home.split("/").at(-2)!);
      assert.equal((await Deno.lstat(scratch)).mode! & 0o7777, 0o700);
      await assert.rejects(Deno.lstat(stale), Deno.errors.NotFound, "a dead lspgate's was left");
    });
  } finally {
    await Deno.remove(runtime);
    await Deno.remove(real, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("a server whose launcher refused its scratch folder fails to start with PERMISSION_DENIED naming the folder, not SERVER_START_FAILED", async () => {
  await requireLandlock();
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_scratch_" }));
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_ws_" }));
  const folder = join(runtime, "lspgate");
  const sandbox = join(folder, "sandbox");
  try {
    await Deno.chmod(runtime, 0o700);
    await Deno.mkdir(join(runtime, "victim"), { mode: 0o700 });
    await withRuntime(runtime, async () => {
      // A real server (deno lsp) behind the launcher; `sandbox` becomes a link after the check.
      const wrapped = await wrapLandlock([Deno.execPath(), "lsp"], {
        workspace,
        workspaceWritable: false,
        readOnlyPaths: [],
      });
      await Deno.mkdir(folder, { mode: 0o700 }).catch(() => {});
      await Deno.symlink(join(runtime, "victim"), sandbox);
      const error = await LspClient.start({
        serverName: "deno",
        root: workspace,
        rootUri: toFileUrl(workspace),
        process: { command: wrapped.command, cwd: workspace },
        installHint: "",
        requestTimeoutMs: 10_000,
        startTimeoutMs: 10_000,
      }).then(() => undefined, (e) => e);
      assert.ok(error instanceof LspGateError, String(error));
      assert.equal(error.code, "PERMISSION_DENIED", error.message);
      assert.ok(
        error.message.startsWith(`deno was not started: ${sandbox} cannot be opened as a folder`),
        error.message,
      );
      assert.deepEqual([...Deno.readDirSync(join(runtime, "victim"))], []);
    });
  } finally {
    await Deno.remove(runtime, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
});
