import assert from "node:assert/strict";
import { join } from "node:path";
import { type FileChange, IN_THREAD_MAX_FOLDERS, watchWorkspace } from "./watcher.ts";
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

Deno.test(
  "on this thread only for a small tree: past IN_THREAD_MAX_FOLDERS folders the watcher gets its Worker",
  { sanitizeOps: false, sanitizeResources: false },
  async () => {
    const small = await tempRoot();
    const large = await tempRoot();
    for (let i = 0; i <= IN_THREAD_MAX_FOLDERS; i++) {
      await Deno.mkdir(join(large, `d${Math.floor(i / 100)}`, `e${i}`), { recursive: true });
    }
    await Deno.mkdir(join(small, "src", "lib"), { recursive: true });
    const seen = new Set<string>();
    const record = (changes: FileChange[]) => {
      for (const change of changes) seen.add(change.path);
      return Promise.resolve();
    };
    const watchers = [small, large].map((root) => watchWorkspace(root, record, { inThread: true }));
    try {
      for (const watcher of watchers) {
        const deadline = Date.now() + 20_000;
        while (!watcher.exact && Date.now() < deadline) await watcher.flush();
        assert.equal(watcher.exact, true);
      }
      assert.deepEqual(watchers.map((w) => w.runsOn), ["main thread", "worker"]);
      // Either way a write before a flush is delivered by it.
      for (const [i, root] of [small, large].entries()) {
        const file = join(root, i ? "d3/e300/x.txt" : "src/lib/x.txt");
        await Deno.writeTextFile(file, "x");
        await watchers[i].flush();
        assert.ok(seen.has(file), `the write of ${file} before the flush was delivered`);
      }
    } finally {
      for (const watcher of watchers) watcher.stop();
      await Deno.remove(small, { recursive: true });
      await Deno.remove(large, { recursive: true });
    }
  },
);
