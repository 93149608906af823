import assert from "node:assert/strict";
import { join } from "node:path";
import { WorkspaceRoot } from "../permissions/workspace.ts";
import { ImportResolver } from "./import_resolution.ts";

/** A workspace at `base/ws` holding `files`, and a folder `base/outside` beside it. */
async function setUp(files: Record<string, string>) {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-resolve-" }));
  const ws = join(base, "ws");
  for (const [rel, text] of Object.entries({ ...files, "../outside/tsconfig.json": "" })) {
    await Deno.mkdir(join(ws, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(ws, rel), text);
  }
  const workspace = await WorkspaceRoot.open(ws);
  const listed = await workspace.glob("**/*");
  const resolver = new ImportResolver(workspace, new Set<string>(listed.paths), ws);
  return { ws, base, resolver, remove: () => Deno.remove(base, { recursive: true }) };
}

Deno.test("ImportResolver.script() maps names by paths, then baseUrl, over a Node built-in", async () => {
  const t = await setUp({
    "tsconfig.json": '{ "compilerOptions": { "baseUrl": "src", "paths": { "~/*": ["lib/*"] } } }',
    "src/path.ts": "",
    "src/lib/u.ts": "",
  });
  try {
    const c = join(t.ws, "src/c.ts");
    // paths targets are relative to baseUrl when there is one.
    assert.deepEqual(await t.resolver.script(c, "~/u"), {
      kind: "file",
      path: join(t.ws, "src/lib/u.ts"),
    });
    assert.deepEqual(await t.resolver.script(c, "path"), {
      kind: "file",
      path: join(t.ws, "src/path.ts"),
    });
    assert.deepEqual(await t.resolver.script(c, "fs"), { kind: "outside" });
    assert.deepEqual(await t.resolver.script(c, "node:fs"), { kind: "outside" });
    assert.deepEqual(await t.resolver.script(c, "nowhere"), { kind: "unresolved" });
  } finally {
    await t.remove();
  }
});

Deno.test("ImportResolver reads no config outside the workspace: an extends there maps nothing", async () => {
  const t = await setUp({
    "tsconfig.json": '{ "extends": "../outside/tsconfig.json" }',
    "src/a.ts": "",
  });
  try {
    await Deno.writeTextFile(
      join(t.base, "outside/tsconfig.json"),
      '{ "compilerOptions": { "baseUrl": "../ws/src" } }',
    );
    assert.deepEqual(await t.resolver.script(join(t.ws, "c.ts"), "a"), { kind: "unresolved" });
  } finally {
    await t.remove();
  }
});

Deno.test("ImportResolver.installed() finds a package in a node_modules above the importer", async () => {
  const t = await setUp({
    "node_modules/left-pad/index.js": "",
    "node_modules/@types/scope__lib/index.d.ts": "",
    "pkg/src/c.ts": "",
  });
  try {
    const c = join(t.ws, "pkg/src/c.ts");
    assert.equal(await t.resolver.installed(c, "left-pad"), true);
    assert.equal(await t.resolver.installed(c, "@scope/lib/sub"), true);
    assert.equal(await t.resolver.installed(c, "right-pad"), false);
  } finally {
    await t.remove();
  }
});

Deno.test("ImportResolver.python() resolves from the root, src/ and a relative package", async () => {
  const t = await setUp({
    "src/pkg/__init__.py": "",
    "src/pkg/a.py": "",
    "ns/b.py": "",
  });
  try {
    const c = join(t.ws, "tests/c.py");
    assert.deepEqual(await t.resolver.python(c, "pkg", ["a", "f"]), {
      files: [join(t.ws, "src/pkg/__init__.py"), join(t.ws, "src/pkg/a.py")],
      found: true,
    });
    // A namespace package (a folder with no __init__.py) is found; its module too.
    assert.deepEqual(await t.resolver.python(c, "ns", ["b"]), {
      files: [join(t.ws, "ns/b.py")],
      found: true,
    });
    assert.deepEqual(await t.resolver.python(join(t.ws, "src/pkg/x.py"), ".a"), {
      files: [join(t.ws, "src/pkg/a.py")],
      found: true,
    });
    assert.deepEqual(await t.resolver.python(c, "elsewhere.a"), { files: [], found: false });
  } finally {
    await t.remove();
  }
});
