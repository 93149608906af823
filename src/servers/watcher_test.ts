import assert from "node:assert/strict";
import { join } from "node:path";
import { type FileChange, IN_THREAD_MAX, watchWorkspace } from "./watcher.ts";
import { pathExists, runtimeFolderPath } from "../fs.ts";

async function tempRoot(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_watch_" }));
}

for (const inThread of [false, true]) {
  const where = inThread ? "on this thread" : "in a Worker";
  // Watching on this thread, a stopped watcher is abandoned, never closed (a process exit ends
  // it): its watch stays pending, which Deno's op and resource checks would count as a leak.
  const leaves = inThread ? { sanitizeOps: false, sanitizeResources: false } : {};

  Deno.test(
    `${where}: flush() after a write has delivered that write, every time (the barrier)`,
    leaves,
    async () => {
      const root = await tempRoot();
      const seen = new Map<string, number>();
      const watcher = watchWorkspace(root, (changes: FileChange[]) => {
        for (const change of changes) seen.set(change.path, (seen.get(change.path) ?? 0) + 1);
        return Promise.resolve();
      }, { inThread });
      try {
        // The Worker may take a while to start on a loaded machine; a flush waits only so long.
        const deadline = Date.now() + 20_000;
        while (!watcher.exact && Date.now() < deadline) await watcher.flush();
        assert.equal(watcher.exact, true, "tests run with write access to the temp folder");
        for (let i = 0; i < 200; i++) {
          const file = join(root, `f${i % 7}.txt`);
          const before = seen.get(file) ?? 0;
          await Deno.writeTextFile(file, `edit ${i}`);
          await watcher.flush();
          assert.ok(
            (seen.get(file) ?? 0) > before,
            `edit ${i} of ${file} was delivered by the flush`,
          );
        }
      } finally {
        watcher.stop();
        await Deno.remove(root, { recursive: true });
      }
    },
  );

  Deno.test(
    `${where}: a flush asked while another is in flight still orders a write made in between`,
    leaves,
    async () => {
      const root = await tempRoot();
      const seen = new Set<string>();
      const watcher = watchWorkspace(root, (changes: FileChange[]) => {
        for (const change of changes) seen.add(change.path);
        return Promise.resolve();
      }, { inThread });
      try {
        const deadline = Date.now() + 20_000;
        while (!watcher.exact && Date.now() < deadline) await watcher.flush();
        assert.equal(watcher.exact, true);
        for (let i = 0; i < 100; i++) {
          const earlier = watcher.flush();
          const file = join(root, `g${i}.txt`);
          await Deno.writeTextFile(file, "x");
          // Many at once share rounds; each must still follow the write before it.
          await Promise.all([watcher.flush(), watcher.flush(), watcher.flush()]);
          assert.ok(seen.has(file), `the write of ${file} before the flush was delivered`);
          await earlier;
        }
      } finally {
        watcher.stop();
        await Deno.remove(root, { recursive: true });
      }
    },
  );
}

Deno.test("stop() removes the barrier folder and later flushes return at once", async () => {
  const root = await tempRoot();
  const parents = [runtimeFolderPath(), Deno.env.get("TMPDIR") || "/tmp"];
  const barriers = async () => {
    const found: string[] = [];
    for (const parent of parents) {
      try {
        for await (const entry of Deno.readDir(parent)) {
          if (entry.name.startsWith("barrier-")) found.push(join(parent, entry.name));
        }
      } catch {
        // No such folder here.
      }
    }
    return found;
  };
  const before = new Set(await barriers());
  const watcher = watchWorkspace(root, () => Promise.resolve());
  const deadline = Date.now() + 20_000;
  while (!watcher.exact && Date.now() < deadline) await watcher.flush();
  const mine = (await barriers()).filter((path) => !before.has(path));
  assert.equal(mine.length, 1, `one barrier folder of this watcher: ${mine}`);
  watcher.stop();
  await watcher.flush();
  assert.equal(watcher.exact, false);
  assert.equal(await pathExists(mine[0]), false);
  await Deno.remove(root, { recursive: true });
});

Deno.test("status says whether changes are followed exactly: only with a private folder to write", async () => {
  const root = await tempRoot();
  const temp = await tempRoot();
  const mod = new URL("../../mod.ts", import.meta.url).pathname;
  const status = async (extra: string[]) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", "--allow-env", "--allow-run", ...extra, mod, "--root", root],
      env: { TMPDIR: temp, XDG_RUNTIME_DIR: join(temp, "no-runtime") },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode('{"id": 1, "action": "status"}\n'));
    await writer.close();
    const out = new TextDecoder().decode((await child.output()).stdout);
    return JSON.parse(out.trim()).details.changeTracking;
  };
  try {
    // `deno task start`'s flags: no write anywhere, so no barrier.
    assert.equal(await status([]), "best effort");
    assert.equal(await status([`--allow-write=${temp}`]), "exact");
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(temp, { recursive: true });
  }
});

/** Makes `count` folders (or files) under `root` in one go, 100 to a parent folder. */
async function fill(root: string, count: number, kind: "folders" | "files"): Promise<void> {
  const parents = Math.ceil(count / 100);
  const script = kind === "folders"
    ? `mkdir -p d{0..${parents - 1}}/e{0..99}`
    : `mkdir -p f{0..${parents - 1}} && for p in f*; do touch $p/x{0..99}; done`;
  const made = await new Deno.Command("bash", { args: ["-c", script], cwd: root }).output();
  assert.equal(made.code, 0, new TextDecoder().decode(made.stderr));
}

Deno.test(
  "on this thread only for a small tree: past IN_THREAD_MAX's folders or entries the watcher gets its Worker",
  { sanitizeOps: false, sanitizeResources: false },
  async () => {
    const small = await tempRoot();
    const manyFolders = await tempRoot();
    const manyFiles = await tempRoot();
    await Deno.mkdir(join(small, "src", "lib"), { recursive: true });
    await fill(manyFolders, IN_THREAD_MAX.folders + 100, "folders");
    await fill(manyFiles, IN_THREAD_MAX.entries + 100, "files");
    const roots = [small, manyFolders, manyFiles];
    const seen = new Set<string>();
    const record = (changes: FileChange[]) => {
      for (const change of changes) seen.add(change.path);
      return Promise.resolve();
    };
    const watchers = roots.map((root) => watchWorkspace(root, record, { inThread: true }));
    try {
      for (const watcher of watchers) {
        const deadline = Date.now() + 20_000;
        while (!watcher.exact && Date.now() < deadline) await watcher.flush();
        assert.equal(watcher.exact, true);
      }
      assert.deepEqual(watchers.map((w) => w.runsOn), ["main thread", "worker", "worker"]);
      // Either way a write before a flush is delivered by it.
      for (const [i, root] of roots.entries()) {
        const file = join(root, ["src/lib", "d3/e7", "f2"][i], "new.txt");
        await Deno.writeTextFile(file, "x");
        await watchers[i].flush();
        assert.ok(seen.has(file), `the write of ${file} before the flush was delivered`);
      }
    } finally {
      for (const watcher of watchers) watcher.stop();
      for (const root of roots) await Deno.remove(root, { recursive: true });
    }
  },
);

/** Worker threads of this process, by the names Deno gives them ("worker-N"). */
function workerThreads(): number {
  let count = 0;
  for (const task of Deno.readDirSync("/proc/self/task")) {
    const comm = Deno.readTextFileSync(`/proc/self/task/${task.name}/comm`).trim();
    if (/^worker-\d+$/.test(comm)) count++;
  }
  return count;
}

Deno.test("the watches of several workspaces share one Worker, which goes with the last of them", async () => {
  const roots = [await tempRoot(), await tempRoot(), await tempRoot()];
  const before = workerThreads();
  const seen = new Set<string>();
  const watchers = roots.map((root) =>
    watchWorkspace(root, (changes: FileChange[]) => {
      for (const change of changes) seen.add(change.path);
      return Promise.resolve();
    })
  );
  try {
    for (const watcher of watchers) {
      const deadline = Date.now() + 20_000;
      while (!watcher.exact && Date.now() < deadline) await watcher.flush();
      assert.equal(watcher.exact, true);
    }
    assert.equal(workerThreads() - before, 1, "one watcher Worker for three workspaces");
    // One stops (its watch closed in the Worker); the others still deliver every write.
    watchers[0].stop();
    for (const [i, root] of roots.entries()) {
      if (i === 0) continue;
      const file = join(root, "after.txt");
      await Deno.writeTextFile(file, "x");
      await watchers[i].flush();
      assert.ok(seen.has(file), `the write of ${file} after another workspace stopped`);
    }
  } finally {
    for (const watcher of watchers) watcher.stop();
    for (const root of roots) await Deno.remove(root, { recursive: true });
  }
  // Terminated with the last watch: Deno's own sanitizer would also name a Worker left behind.
  const deadline = Date.now() + 5_000;
  while (workerThreads() > before && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(workerThreads(), before);
});

Deno.test("a flush that went on before the watches were set is followed by a lost-changes report once they are", async () => {
  // Setting a watch on each of 40,000 folders holds the shared Worker ~0.45 s: the small
  // workspace's watch, queued behind it, starts after its first flush gave up waiting (200 ms).
  const big = await tempRoot();
  const small = await tempRoot();
  await fill(big, 40_000, "folders");
  let lost = 0;
  const busy = watchWorkspace(big, () => Promise.resolve());
  const late = watchWorkspace(small, () => Promise.resolve(), { onLost: () => lost++ });
  try {
    await late.flush();
    assert.equal(late.runsOn, "worker");
    assert.equal(late.exact, false, "its first flush went on before its watch was set");
    assert.equal(lost, 0);
    const deadline = Date.now() + 20_000;
    while (!late.exact && Date.now() < deadline) await late.flush();
    assert.equal(late.exact, true);
    assert.equal(lost, 1, "what changed before the watch was set is reported as lost");
    // Once: later flushes are exact again.
    await late.flush();
    assert.equal(lost, 1);
  } finally {
    busy.stop();
    late.stop();
    await Deno.remove(big, { recursive: true });
    await Deno.remove(small, { recursive: true });
  }
});
