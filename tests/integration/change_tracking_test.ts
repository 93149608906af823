// lspgate remembers what it sent each server and which server a file goes to, and trusts the
// workspace watcher (exact, with its barrier) to say when either may have changed. These tests
// change the disk in the ways a stat cannot see, or that change which server answers, and ask
// right after: the answer must be about the disk as it is.
import assert from "node:assert/strict";
import { join } from "node:path";
import { expectOk, openSession } from "../helpers/session.ts";

async function tempRoot(files: Record<string, string>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_tracking_" }));
  for (const [rel, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, rel), text);
  }
  return root;
}

Deno.test("an open file rewritten with the same size and mtime is read again on the next ask", async () => {
  const root = await tempRoot({ "deno.json": "{}\n", "a.ts": "export const alpha = 1;\n" });
  const session = await openSession(root);
  let id = 1;
  const names = async () => {
    const answer = expectOk(await session.handle({ id: id++, action: "symbols", file: "a.ts" }));
    return (answer.details.symbols as { name: string }[]).map((s) => s.name);
  };
  try {
    assert.equal(session.facts.changeTracking?.(), "exact");
    assert.deepEqual(await names(), ["alpha"]);
    const path = join(root, "a.ts");
    const before = await Deno.stat(path);
    // Same length, and the old mtime put back: only the watcher can tell it changed.
    await Deno.writeTextFile(path, "export const gamma = 1;\n");
    await Deno.utime(path, before.atime!, before.mtime!);
    const after = await Deno.stat(path);
    assert.equal(after.size, before.size);
    assert.equal(after.mtime?.getTime(), before.mtime?.getTime());
    assert.deepEqual(await names(), ["gamma"]);
    // Asked again with nothing changed: the same answer, from what the server already has.
    assert.deepEqual(await names(), ["gamma"]);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a root marker created between two asks moves the file to its new project", async () => {
  const root = await tempRoot({ "pkg/mod.py": "def hello() -> int:\n    return 1\n" });
  const session = await openSession(root);
  let id = 1;
  const serverRoot = async () => {
    const answer = expectOk(
      await session.handle({ id: id++, action: "symbols", file: "pkg/mod.py" }),
    );
    assert.deepEqual((answer.details.symbols as { name: string }[]).map((s) => s.name), [
      "hello",
    ]);
    const status = expectOk(await session.handle({ id: id++, action: "status" }));
    const servers = status.details.servers as { server: string; root: string }[];
    return servers.filter((s) => s.server === "pyright").map((s) => s.root).sort();
  };
  try {
    assert.deepEqual(await serverRoot(), ["."]);
    await Deno.writeTextFile(join(root, "pkg", "pyproject.toml"), '[project]\nname = "pkg"\n');
    assert.deepEqual(await serverRoot(), [".", "pkg"]);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});
