import assert from "node:assert/strict";
import { join } from "node:path";
import { ApplyJournal } from "./apply_journal.ts";
import { type Change, recoverRoot, transact } from "./transaction.ts";

const options = (root: string) => ({
  root,
  relative: (p: string) => p.slice(root.length + 1),
  checkFolder: () => Promise.resolve(),
});

async function tree(files: Record<string, string>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_tx_" }));
  for (const [name, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, name, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, name), text);
  }
  return root;
}

async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else out[path.slice(root.length + 1)] = await Deno.readTextFile(path);
    }
  };
  await walk(root);
  return out;
}

async function chattr(flag: "+i" | "-i", path: string): Promise<void> {
  const { success, stderr } = await new Deno.Command("chattr", { args: [flag, path] }).output();
  assert.ok(success, `chattr ${flag} ${path}: ${new TextDecoder().decode(stderr)}`);
}

Deno.test("transact() writes every file, keeping modes and owners, and leaves no side file", async () => {
  const root = await tree({ "a.ts": "a1", "b/b.ts": "b1", "c.ts": "c1" });
  try {
    await Deno.chmod(join(root, "a.ts"), 0o640);
    await Deno.chown(join(root, "b/b.ts"), 1234, 2345);
    const changes: Change[] = [
      { kind: "write", path: join(root, "a.ts"), text: "a2" },
      { kind: "write", path: join(root, "b/b.ts"), text: "b2" },
      { kind: "move", from: join(root, "c.ts"), to: join(root, "d/c.ts") },
      { kind: "write", path: join(root, "new.ts"), text: "" },
    ];
    assert.equal(await transact(changes, options(root)), undefined);
    assert.deepEqual(await snapshot(root), {
      "a.ts": "a2",
      "b/b.ts": "b2",
      "d/c.ts": "c1",
      "new.ts": "",
    });
    assert.equal((await Deno.stat(join(root, "a.ts"))).mode! & 0o777, 0o640);
    const b = await Deno.stat(join(root, "b/b.ts"));
    assert.deepEqual([b.uid, b.gid], [1234, 2345]);
    assert.equal(await (await ApplyJournal.of(root)).read(), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("transact() puts back every file replaced before one that cannot be: EDIT_FAILED", async () => {
  const files = { "a.ts": "a1", "b.ts": "b1", "c.ts": "c1", "d.ts": "d1" };
  const root = await tree(files);
  // The last file cannot be replaced (immutable): three are renamed into place before it fails.
  await chattr("+i", join(root, "d.ts"));
  try {
    const changes: Change[] = Object.keys(files).map((f) => ({
      kind: "write",
      path: join(root, f),
      text: f.replace(".ts", "2"),
    }));
    changes.push({ kind: "move", from: join(root, "a.ts"), to: join(root, "moved/a.ts") });
    await assert.rejects(transact(changes, options(root)), (error: Error & { code?: string }) => {
      assert.equal(error.code, "EDIT_FAILED");
      assert.match(
        error.message,
        /^The edit could not be written \(d\.ts\): .*Nothing was written: every file is as it was\.$/,
      );
      return true;
    });
    assert.deepEqual(await snapshot(root), files);
    assert.equal(await (await ApplyJournal.of(root)).read(), undefined);
  } finally {
    await chattr("-i", join(root, "d.ts"));
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("recoverRoot() rolls a journal left while preparing back, and one left while committing forward", async () => {
  const root = await tree({ "a.ts": "a1", "b.ts": "b1" });
  try {
    const journal = await ApplyJournal.of(root);
    // A process killed after renaming a.ts into place, before b.ts: b.ts's new text is beside it.
    const side = (name: string, kind: string) =>
      join(
        root,
        `.${name}.lspgate-00000000-0000-4000-8000-00000000000${kind === "tmp" ? 1 : 2}.${kind}`,
      );
    await Deno.writeTextFile(join(root, "a.ts"), "a2");
    await Deno.writeTextFile(side("b.ts", "tmp"), "b2");
    await Deno.link(join(root, "b.ts"), side("b.ts", "orig"));
    await journal.write({
      version: 1,
      root,
      pid: 1,
      startedAt: "2026-01-01T00:00:00.000Z",
      phase: "committing",
      steps: [
        { kind: "replace", target: join(root, "a.ts"), temp: side("a.ts", "tmp") },
        {
          kind: "replace",
          target: join(root, "b.ts"),
          temp: side("b.ts", "tmp"),
          backup: side("b.ts", "orig"),
        },
      ],
      folders: [],
    });
    const note = await recoverRoot(root, options(root));
    assert.match(
      note ?? "",
      /^An apply of 2 file\(s\) .* rolled forward: every file now holds its new text\.$/,
    );
    assert.deepEqual(await snapshot(root), { "a.ts": "a2", "b.ts": "b2" });
    assert.equal(await journal.read(), undefined);

    await Deno.writeTextFile(side("a.ts", "tmp"), "a3");
    await journal.write({
      version: 1,
      root,
      pid: 1,
      startedAt: "2026-01-01T00:00:00.000Z",
      phase: "preparing",
      steps: [{ kind: "replace", target: join(root, "a.ts"), temp: side("a.ts", "tmp") }],
      folders: [],
    });
    assert.match(await recoverRoot(root, options(root)) ?? "", /rolled back/);
    assert.deepEqual(await snapshot(root), { "a.ts": "a2", "b.ts": "b2" });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a journal that names a file outside its root, is a symlink, not JSON or open to others is not acted on", async () => {
  const root = await tree({ "a.ts": "a1" });
  const outside = await Deno.makeTempFile();
  try {
    const journal = await ApplyJournal.of(root);
    await journal.write({
      version: 1,
      root,
      pid: 1,
      startedAt: "2026-01-01T00:00:00.000Z",
      phase: "preparing",
      steps: [{ kind: "replace", target: outside, temp: outside }],
      folders: [],
    });
    await assert.rejects(recoverRoot(root, options(root)), /names files outside it/);
    assert.ok(await Deno.stat(outside));
    await journal.clear();
    await Deno.symlink(outside, journal.path);
    await assert.rejects(recoverRoot(root, options(root)), /is not a file lspgate wrote/);
    await Deno.remove(journal.path);
    // Not JSON, or open to others: not one lspgate wrote either.
    await Deno.writeTextFile(journal.path, "{", { mode: 0o600 });
    await assert.rejects(recoverRoot(root, options(root)), /is not a file lspgate wrote/);
    await Deno.writeTextFile(journal.path, "{}");
    await Deno.chmod(journal.path, 0o644);
    await assert.rejects(recoverRoot(root, options(root)), /is not a file lspgate wrote/);
    await Deno.remove(journal.path);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside);
  }
});

Deno.test("transact() first finishes an apply a killed process left in its root, and says so", async () => {
  const root = await tree({ "a.ts": "a1", "b.ts": "b1" });
  try {
    const journal = await ApplyJournal.of(root);
    const temp = join(root, ".b.ts.lspgate-00000000-0000-4000-8000-000000000001.tmp");
    const backup = join(root, ".b.ts.lspgate-00000000-0000-4000-8000-000000000002.orig");
    await Deno.writeTextFile(temp, "b2");
    await Deno.link(join(root, "b.ts"), backup);
    await journal.write({
      version: 1,
      root,
      pid: 1,
      startedAt: "2026-01-01T00:00:00.000Z",
      phase: "committing",
      steps: [{ kind: "replace", target: join(root, "b.ts"), temp, backup }],
      folders: [],
    });
    const note = await transact(
      [{ kind: "write", path: join(root, "a.ts"), text: "a2" }],
      options(root),
    );
    assert.match(note ?? "", /^An apply of 1 file\(s\) .* rolled forward/);
    assert.deepEqual(await snapshot(root), { "a.ts": "a2", "b.ts": "b2" });
    assert.equal(await journal.read(), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("transact() moves a file onto another file system, its new text, mode and owner kept", async () => {
  const root = await tree({ "a.ts": "a1", "b.ts": "b1" });
  const other = join(root, "other");
  await Deno.mkdir(other);
  const mount = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", "size=1m", "tmpfs", other],
  }).output();
  assert.ok(mount.success, new TextDecoder().decode(mount.stderr));
  try {
    await Deno.chmod(join(root, "a.ts"), 0o640);
    await Deno.chown(join(root, "a.ts"), 1234, 2345);
    await transact([
      { kind: "write", path: join(root, "a.ts"), text: "a2" },
      { kind: "move", from: join(root, "a.ts"), to: join(other, "sub/a.ts") },
      { kind: "move", from: join(root, "b.ts"), to: join(other, "b.ts") },
    ], options(root));
    assert.deepEqual(await snapshot(root), { "other/sub/a.ts": "a2", "other/b.ts": "b1" });
    const a = await Deno.stat(join(other, "sub/a.ts"));
    assert.deepEqual([a.mode! & 0o777, a.uid, a.gid], [0o640, 1234, 2345]);
  } finally {
    await new Deno.Command("umount", { args: [other] }).output();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("transact() in a runtime folder open to others writes no journal there, and still applies", async () => {
  const root = await tree({ "a.ts": "a1" });
  const runtime = await Deno.makeTempDir();
  const saved = Deno.env.get("XDG_RUNTIME_DIR");
  Deno.env.set("XDG_RUNTIME_DIR", runtime);
  try {
    await Deno.mkdir(join(runtime, "lspgate"), { mode: 0o755 });
    await Deno.chmod(join(runtime, "lspgate"), 0o755);
    await transact([{ kind: "write", path: join(root, "a.ts"), text: "a2" }], options(root));
    assert.deepEqual(await snapshot(root), { "a.ts": "a2" });
    assert.deepEqual([...Deno.readDirSync(join(runtime, "lspgate"))], []);
  } finally {
    if (saved === undefined) Deno.env.delete("XDG_RUNTIME_DIR");
    else Deno.env.set("XDG_RUNTIME_DIR", saved);
    await Deno.remove(runtime, { recursive: true });
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("recoverRoot() never overwrites a file another program changed after the crash", async () => {
  const root = await tree({ "a.ts": "a1", "b.ts": "b1", "c.ts": "c1" });
  try {
    const journal = await ApplyJournal.of(root);
    const side = (name: string, n: number, kind: string) =>
      join(root, `.${name}.lspgate-00000000-0000-4000-8000-00000000000${n}.${kind}`);
    // Killed before any rename; then another program rewrote b.ts (a new file, new inode).
    const steps = [];
    for (const [n, name] of ["a.ts", "b.ts", "c.ts"].entries()) {
      await Deno.writeTextFile(side(name, n, "tmp"), `${name[0]}2`);
      await Deno.link(join(root, name), side(name, n, "orig"));
      steps.push({
        kind: "replace" as const,
        target: join(root, name),
        temp: side(name, n, "tmp"),
        backup: side(name, n, "orig"),
      });
    }
    await journal.write({
      version: 1,
      root,
      pid: 1,
      startedAt: "2026-01-01T00:00:00.000Z",
      phase: "committing",
      steps,
      folders: [],
    });
    await Deno.remove(join(root, "b.ts"));
    await Deno.writeTextFile(join(root, "b.ts"), "b by another program");
    const note = await recoverRoot(root, options(root));
    assert.match(note ?? "", /rolled forward, except b\.ts, changed by another program since/);
    assert.deepEqual(await snapshot(root), {
      "a.ts": "a2",
      "b.ts": "b by another program",
      "c.ts": "c2",
    });
    assert.equal(await journal.read(), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
