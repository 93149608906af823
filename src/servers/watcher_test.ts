import assert from "node:assert/strict";
import { join } from "node:path";
import { type FileChange, watchWorkspace } from "./watcher.ts";
import { pathExists, runtimeFolderPath } from "../fs.ts";

async function tempRoot(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_watch_" }));
}

Deno.test("flush() after a write has delivered that write, every time (the barrier)", async () => {
  const root = await tempRoot();
  const seen = new Map<string, number>();
  const watcher = watchWorkspace(root, (changes: FileChange[]) => {
    for (const change of changes) seen.set(change.path, (seen.get(change.path) ?? 0) + 1);
    return Promise.resolve();
  });
  try {
    await watcher.flush();
    assert.equal(watcher.exact, true, "tests run with write access to the temp folder");
    for (let i = 0; i < 200; i++) {
      const file = join(root, `f${i % 7}.txt`);
      const before = seen.get(file) ?? 0;
      await Deno.writeTextFile(file, `edit ${i}`);
      await watcher.flush();
      assert.ok((seen.get(file) ?? 0) > before, `edit ${i} of ${file} was delivered by the flush`);
    }
  } finally {
    watcher.stop();
    await Deno.remove(root, { recursive: true });
  }
});

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
  await watcher.flush();
  const mine = (await barriers()).filter((path) => !before.has(path));
  assert.equal(mine.length, 1, `one barrier folder of this watcher: ${mine}`);
  watcher.stop();
  await watcher.flush();
  assert.equal(watcher.exact, false);
  assert.equal(await pathExists(mine[0]), false);
  await Deno.remove(root, { recursive: true });
});
