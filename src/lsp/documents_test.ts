import assert from "node:assert/strict";
import { DocumentStore } from "./documents.ts";

Deno.test("DocumentStore.sync() opens once, then changes only when the text changes", async () => {
  const store = new DocumentStore();
  const first = await store.sync("file:///a.ts", "typescript", "one");
  const same = await store.sync("file:///a.ts", "typescript", "one");
  const changed = await store.sync("file:///a.ts", "typescript", "two");
  assert.deepEqual([first.kind, first.doc.version], ["open", 1]);
  assert.deepEqual([same.kind, same.doc.version], ["unchanged", 1]);
  assert.deepEqual([changed.kind, changed.doc.version], ["change", 2]);
});

Deno.test("DocumentStore.oldest() names the least recently used documents beyond the limit", async () => {
  const store = new DocumentStore();
  await store.sync("file:///a", "x", "a");
  await store.sync("file:///b", "x", "b");
  await store.sync("file:///c", "x", "c");
  await store.sync("file:///a", "x", "a");
  assert.deepEqual(store.oldest(2), ["file:///b"]);
  assert.deepEqual(store.oldest(3), []);
});

Deno.test("DocumentStore.touch() gives the same text a next version, which a sync then keeps", async () => {
  const store = new DocumentStore();
  await store.sync("file:///a.ts", "typescript", "one");
  assert.equal(store.touch("file:///a.ts")?.version, 2);
  const same = await store.sync("file:///a.ts", "typescript", "one");
  assert.deepEqual([same.kind, same.doc.version], ["unchanged", 2]);
  assert.equal(store.touch("file:///b.ts"), undefined);
});
