import assert from "node:assert/strict";
import { join } from "node:path";
import { WorkspaceRoot } from "../permissions/workspace.ts";
import type { ChangeListener } from "../servers/manager.ts";
import { toFileUrl } from "../servers/uri.ts";
import { TextCache } from "./text_cache.ts";

async function setUp() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-texts-" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-outside-" }));
  const workspace = await WorkspaceRoot.open(root);
  let reads = 0;
  const readText = workspace.readText.bind(workspace);
  workspace.readText = (path, options) => {
    reads++;
    return readText(path, options);
  };
  let lookups = 0;
  const resolveUri = workspace.resolveUri.bind(workspace);
  workspace.resolveUri = (uri) => {
    lookups++;
    return resolveUri(uri);
  };
  const listeners: ChangeListener[] = [];
  const watcher = {
    onChanges(listener: ChangeListener) {
      listeners.push(listener);
      return () => {};
    },
  };
  return {
    root,
    outside,
    cache: new TextCache(workspace, watcher),
    report: (change: Parameters<ChangeListener>[0]) => listeners.forEach((l) => l(change)),
    reads: () => reads,
    lookups: () => lookups,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

Deno.test("TextCache reads a file once while it is unchanged", async () => {
  await using t = await setUp();
  const path = join(t.root, "a.ts");
  await Deno.writeTextFile(path, "export const a = 1;\n");
  const uri = toFileUrl(path);
  assert.equal((await t.cache.linesOf(uri))?.line(0), "export const a = 1;");
  assert.equal((await t.cache.linesOf(uri))?.line(0), "export const a = 1;");
  assert.equal(t.reads(), 1);
});

Deno.test("TextCache reads again a file rewritten, whether the watcher or its stat says so", async () => {
  await using t = await setUp();
  const path = join(t.root, "a.ts");
  await Deno.writeTextFile(path, "export const a = 1;\n");
  const uri = toFileUrl(path);
  await t.cache.linesOf(uri);
  // Another size, no word from the watcher: the stat tells.
  await Deno.writeTextFile(path, "export const ab = 1;\n");
  assert.equal((await t.cache.linesOf(uri))?.line(0), "export const ab = 1;");
  // Same size and the old mtime put back: only the watcher can tell.
  const before = await Deno.stat(path);
  await Deno.writeTextFile(path, "export const cd = 2;\n");
  await Deno.utime(path, before.atime!, before.mtime!);
  t.report([{ path, type: 2 }]);
  assert.equal((await t.cache.linesOf(uri))?.line(0), "export const cd = 2;");
  assert.equal(t.reads(), 3);
  t.report("lost");
  await t.cache.linesOf(uri);
  assert.equal(t.reads(), 4, "changes lost: nothing kept is trusted");
});

Deno.test("TextCache never shows a file outside, even one swapped in for a kept one", async () => {
  await using t = await setUp();
  const secret = join(t.outside, "secret.ts");
  await Deno.writeTextFile(secret, "export const secret = 1;\n");
  assert.equal(await t.cache.linesOf(toFileUrl(secret)), undefined);
  const path = join(t.root, "a.ts");
  await Deno.writeTextFile(path, "export const secret = 0;\n");
  const uri = toFileUrl(path);
  assert.ok(await t.cache.linesOf(uri));
  // Same size, same mtime: only the file's identity tells them apart.
  const kept = await Deno.stat(path);
  await Deno.utime(secret, kept.atime!, kept.mtime!);
  await Deno.remove(path);
  await Deno.symlink(secret, path);
  assert.equal(await t.cache.linesOf(uri), undefined);
});

Deno.test("TextCache forgets a deleted file", async () => {
  await using t = await setUp();
  const path = join(t.root, "a.ts");
  await Deno.writeTextFile(path, "x\n");
  const uri = toFileUrl(path);
  assert.ok(await t.cache.linesOf(uri));
  await Deno.remove(path);
  assert.equal(await t.cache.linesOf(uri), undefined);
});

Deno.test("TextCache looks for a missing file once while a stat still finds nothing there", async () => {
  await using t = await setUp();
  const path = join(t.root, "pyrightconfig.json");
  const uri = toFileUrl(path);
  assert.equal(await t.cache.linesOf(uri), undefined);
  assert.equal(await t.cache.linesOf(uri), undefined);
  assert.equal(t.lookups(), 1);
  // Created, with no word from the watcher: the stat tells, and it is read.
  await Deno.writeTextFile(path, '{ "include": ["src"] }\n');
  assert.equal((await t.cache.linesOf(uri))?.line(0), '{ "include": ["src"] }');
  assert.equal(t.reads(), 1);
  // Removed, then reported created again: looked for afresh each time it may be there.
  await Deno.remove(path);
  assert.equal(await t.cache.linesOf(uri), undefined);
  const before = t.lookups();
  t.report([{ path, type: 1 }]);
  assert.equal(await t.cache.linesOf(uri), undefined);
  assert.equal(t.lookups(), before + 1);
});

Deno.test("TextCache remembers no missing file outside the workspace", async () => {
  await using t = await setUp();
  const uri = toFileUrl(join(t.outside, "gone.ts"));
  assert.equal(await t.cache.linesOf(uri), undefined);
  assert.equal(await t.cache.linesOf(uri), undefined);
  assert.equal(t.lookups(), 2, "each lookup goes through the workspace boundary");
});
