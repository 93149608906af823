// lspgate remembers what it sent each server and which server a file goes to, and trusts the
// workspace watcher (exact, with its barrier) to say when either may have changed. These tests
// change the disk in the ways a stat cannot see, or that change which server answers, and ask
// right after: the answer must be about the disk as it is.
import assert from "node:assert/strict";
import { join } from "node:path";
import { expectOk, openSession } from "../helpers/session.ts";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { isSkippedFolder } from "../../src/permissions/walk.ts";

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

for (const inThread of [false, true]) {
  Deno.test(`a source folder named target (no build tool's manifest beside it) is followed${inThread ? ", watched on the main thread" : ""}: a use moved there answers at its new line`, async () => {
    const root = await tempRoot({
      "pyproject.toml": '[project]\nname = "app"\n',
      "app/__init__.py": "",
      "app/util.py": "def greet(name: str) -> str:\n    return name\n",
      "app/target/__init__.py": "",
      "app/target/use.py": "from app.util import greet\n\nprint(greet('a'))\n",
      // Cargo's output folder beside its manifest stays skipped (and its changes unreported).
      "crate/Cargo.toml": '[package]\nname = "c"\n',
      "crate/target/debug/gen.py": "from app.util import greet\n",
    });
    const session = await Session.open({
      root,
      role: "main",
      allowMutations: false,
      adapters: ADAPTERS,
      config: defaultConfig(),
      watchInThread: inThread,
    });
    let id = 1;
    const uses = async () => {
      const answer = expectOk(
        await session.handle({
          id: id++,
          action: "references",
          file: "app/util.py",
          line: 1,
          symbol: "greet",
        }),
      );
      return (answer.details.locations as { file: string; line: number }[])
        .filter((l) => l.file === "app/target/use.py").map((l) => l.line);
    };
    try {
      assert.equal(session.facts.changeTracking?.(), "exact");
      assert.deepEqual(await uses(), [1, 3]);
      // Moved down two lines by another tool: pyright hears of it only through the watcher.
      await Deno.writeTextFile(
        join(root, "app/target/use.py"),
        "from app.util import greet\n\n\n\nprint(greet('a'))\n",
      );
      assert.deepEqual(await uses(), [1, 5]);
      // The walk (and the watcher process, from its own listing) leaves out Cargo's only.
      assert.equal(isSkippedFolder(join(root, "app"), "target"), false);
      assert.equal(isSkippedFolder(join(root, "crate"), "target"), true);
    } finally {
      await session.close();
      await Deno.remove(root, { recursive: true });
    }
  });
}
