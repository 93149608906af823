import assert from "node:assert/strict";
import { join } from "node:path";
import { daemonSocketPath, RUNTIME_GRANT, runtimeFolderPath } from "./fs.ts";
import {
  checkRuntimeEntry,
  ensureRuntimeFolder,
  readRuntimeFile,
  writeRuntimeFile,
} from "./runtime_folder.ts";

const checkout = new URL("../", import.meta.url);

/** Runs `body` with XDG_RUNTIME_DIR (and USER) set as given, in a fresh temp folder. */
async function withRuntime(
  body: (base: string) => Promise<void>,
  vars: { xdg?: boolean; user?: string } = { xdg: true },
): Promise<void> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_rf_" }));
  const before = { xdg: Deno.env.get("XDG_RUNTIME_DIR"), user: Deno.env.get("USER") };
  if (vars.xdg) Deno.env.set("XDG_RUNTIME_DIR", base);
  else Deno.env.delete("XDG_RUNTIME_DIR");
  if (vars.user !== undefined) Deno.env.set("USER", vars.user);
  try {
    await body(base);
  } finally {
    for (const [name, value] of [["XDG_RUNTIME_DIR", before.xdg], ["USER", before.user]]) {
      if (value === undefined) Deno.env.delete(name!);
      else Deno.env.set(name!, value);
    }
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("runtimeFolderPath() is $XDG_RUNTIME_DIR/lspgate, else /tmp/lspgate-$USER, as the printed grant names it", async () => {
  await withRuntime(async (base) => {
    assert.equal(runtimeFolderPath(), join(base, "lspgate"));
    assert.equal(daemonSocketPath(), join(base, "lspgate", "daemon.sock"));
    // The grant as sh expands it names exactly that folder and socket.
    const expanded = await new Deno.Command("sh", {
      args: ["-c", `printf '%s\\n' ${RUNTIME_GRANT.join(" ")}`],
      env: { XDG_RUNTIME_DIR: base },
      stdout: "piped",
    }).output();
    const [write, net] = new TextDecoder().decode(expanded.stdout).trim().split("\n");
    assert.ok(write.split("=")[1].split(",").includes(runtimeFolderPath()), write);
    assert.ok(net.split("=")[1].split(",").includes(`unix:${daemonSocketPath()}`), net);
  });
  const tmpdir = Deno.env.get("TMPDIR");
  Deno.env.delete("TMPDIR");
  try {
    await withRuntime(() => {
      assert.equal(runtimeFolderPath(), "/tmp/lspgate-ada");
      return Promise.resolve();
    }, { xdg: false, user: "ada" });
  } finally {
    await Deno.remove("/tmp/lspgate-ada").catch(() => {});
    if (tmpdir !== undefined) Deno.env.set("TMPDIR", tmpdir);
  }
});

Deno.test("runtimeFolderPath() is $TMPDIR/lspgate-$USER where $XDG_RUNTIME_DIR cannot hold it (an agent's sandbox), and the grant names it", async () => {
  const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_tmpdir_" }));
  const before = { tmp: Deno.env.get("TMPDIR"), xdg: Deno.env.get("XDG_RUNTIME_DIR") };
  const xdg = "/nonexistent-run-for-lspgate-test";
  Deno.env.set("TMPDIR", tmp);
  Deno.env.set("XDG_RUNTIME_DIR", xdg);
  try {
    await withRuntime(async () => {
      // withRuntime set its own XDG_RUNTIME_DIR: one no folder can be made in stands for a
      // read-only one.
      Deno.env.set("XDG_RUNTIME_DIR", xdg);
      assert.equal(runtimeFolderPath(), join(tmp, "lspgate-ada"));
      assert.ok((await Deno.stat(join(tmp, "lspgate-ada"))).isDirectory);
      const expanded = await new Deno.Command("sh", {
        args: ["-c", `printf '%s\\n' ${RUNTIME_GRANT.join(" ")}`],
        env: { XDG_RUNTIME_DIR: xdg, TMPDIR: tmp, USER: "ada" },
        stdout: "piped",
      }).output();
      const [write, net] = new TextDecoder().decode(expanded.stdout).trim().split("\n");
      assert.ok(write.split("=")[1].split(",").includes(runtimeFolderPath()), write);
      assert.ok(net.split("=")[1].split(",").includes(`unix:${daemonSocketPath()}`), net);
    }, { xdg: false, user: "ada" });
  } finally {
    for (const [name, value] of [["TMPDIR", before.tmp], ["XDG_RUNTIME_DIR", before.xdg]]) {
      if (value === undefined) Deno.env.delete(name!);
      else Deno.env.set(name!, value);
    }
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("deno.json's start tasks carry the runtime folder's grant, and nothing asks for --allow-sys", async () => {
  const { tasks } = JSON.parse(await Deno.readTextFile(new URL("deno.json", checkout)));
  const [, net] = RUNTIME_GRANT;
  for (const name of ["start", "start:mutations"]) {
    const words = (tasks[name] as string).split(" ");
    assert.ok(words.includes(net), `${name}: ${tasks[name]}`);
    assert.ok(words.some((w) => w.startsWith("--allow-write")), `${name}: ${tasks[name]}`);
    assert.ok(!words.some((w) => w.startsWith("--allow-sys")), `${name}: ${tasks[name]}`);
  }
  assert.ok((tasks.start as string).split(" ").includes(RUNTIME_GRANT[0]), tasks.start);
});

Deno.test("the runtime folder is made 0700; one open to others, or a symlink to a folder, is refused", async () => {
  await withRuntime(async (base) => {
    const folder = await ensureRuntimeFolder();
    assert.equal(((await Deno.lstat(folder)).mode ?? 0) & 0o777, 0o700);
    await Deno.chmod(folder, 0o755);
    await assert.rejects(ensureRuntimeFolder(), /not a private folder of this user/);
    await Deno.remove(folder);
    await Deno.mkdir(join(base, "elsewhere"), { mode: 0o700 });
    await Deno.symlink(join(base, "elsewhere"), folder);
    await assert.rejects(ensureRuntimeFolder(), /not a private folder of this user/);
  });
});

Deno.test("a file in the runtime folder is never read or written through a planted symlink: the target is untouched and the error names the file", async () => {
  await withRuntime(async (base) => {
    const folder = await ensureRuntimeFolder();
    const victim = join(base, "victim.txt");
    await Deno.writeTextFile(victim, "keep\n");
    const file = join(folder, "state.json");
    await Deno.symlink(victim, file);
    const named = /PERMISSION_DENIED|state\.json in lspgate's runtime folder is a symlink/;
    await assert.rejects(readRuntimeFile(file), named);
    await assert.rejects(writeRuntimeFile(file, "{}"), named);
    assert.throws(() => checkRuntimeEntry(file, "file"), /state\.json .* is a symlink/);
    assert.equal(await Deno.readTextFile(victim), "keep\n");
    // Its own file: written 0600, read back; a file open to others is refused.
    await Deno.remove(file);
    await writeRuntimeFile(file, '{"a": 1}');
    assert.equal(await readRuntimeFile(file), '{"a": 1}');
    assert.equal(((await Deno.lstat(file)).mode ?? 0) & 0o777, 0o600);
    await Deno.chmod(file, 0o644);
    await assert.rejects(readRuntimeFile(file), /is not private to this user/);
    assert.equal(await readRuntimeFile(join(folder, "absent.json")), undefined);
  });
});

Deno.test("a folder in the runtime folder is used only when it is this user's, mode 0700 and no symlink; the error names the path and the fault", async () => {
  await withRuntime(async (base) => {
    const folder = await ensureRuntimeFolder();
    const sandbox = join(folder, "sandbox");
    assert.equal(checkRuntimeEntry(sandbox, "folder"), false);
    await Deno.mkdir(sandbox, { mode: 0o700 });
    assert.equal(checkRuntimeEntry(sandbox, "folder"), true);
    await Deno.chmod(sandbox, 0o750);
    assert.throws(
      () => checkRuntimeEntry(sandbox, "folder"),
      {
        code: "PERMISSION_DENIED",
        message: /sandbox in lspgate's runtime folder is not private to this user \(mode 0750\)/,
      },
    );
    await Deno.chmod(sandbox, 0o700);
    await Deno.chown(sandbox, 65534, 65534);
    assert.throws(() => checkRuntimeEntry(sandbox, "folder"), /\(owned by uid 65534\)/);
    await Deno.remove(sandbox);
    await Deno.mkdir(join(base, "elsewhere"), { mode: 0o700 });
    await Deno.symlink(join(base, "elsewhere"), sandbox);
    assert.throws(
      () => checkRuntimeEntry(sandbox, "folder"),
      /sandbox in lspgate's runtime folder is a symlink/,
    );
    await Deno.writeTextFile(join(folder, "plain"), "");
    assert.throws(() => checkRuntimeEntry(join(folder, "plain"), "folder"), /is not a folder/);
    // The runtime folder itself says what is wrong with it.
    await Deno.chmod(folder, 0o711);
    await assert.rejects(
      ensureRuntimeFolder(),
      /not a private folder of this user .*: it is not private to this user \(mode 0711\)/,
    );
  });
});
