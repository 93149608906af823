import assert from "node:assert/strict";
import { join } from "node:path";
import { ADAPTERS } from "../../adapters/mod.ts";
import { pickAdapter, pickLinters } from "./pick.ts";

async function tree(files: Record<string, string>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-pick-" }));
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
  return root;
}

Deno.test("pickAdapter() gives each package of a monorepo its own root", async () => {
  const root = await tree({
    "package.json": "{}",
    "packages/a/tsconfig.json": "{}",
    "packages/a/src/x.ts": "",
    "packages/b/tsconfig.json": "{}",
    "packages/b/y.ts": "",
    "tools/z.ts": "",
  });
  try {
    const a = await pickAdapter(join(root, "packages/a/src/x.ts"), root, ADAPTERS);
    const b = await pickAdapter(join(root, "packages/b/y.ts"), root, ADAPTERS);
    const z = await pickAdapter(join(root, "tools/z.ts"), root, ADAPTERS);
    assert.deepEqual([a?.adapter.id, a?.root], ["typescript", join(root, "packages/a")]);
    assert.deepEqual([b?.adapter.id, b?.root], ["typescript", join(root, "packages/b")]);
    assert.deepEqual([z?.adapter.id, z?.root], ["typescript", root]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("pickAdapter() prefers deno for a folder with deno.json, and as the default with no marker", async () => {
  const root = await tree({ "d/deno.json": "{}", "d/m.ts": "", "loose/n.ts": "", "p/q.py": "" });
  try {
    const d = await pickAdapter(join(root, "d/m.ts"), root, ADAPTERS);
    const loose = await pickAdapter(join(root, "loose/n.ts"), root, ADAPTERS);
    const py = await pickAdapter(join(root, "p/q.py"), root, ADAPTERS);
    assert.deepEqual([d?.adapter.id, d?.root, d?.languageId], [
      "deno",
      join(root, "d"),
      "typescript",
    ]);
    assert.deepEqual([loose?.adapter.id, loose?.root], ["deno", root]);
    assert.deepEqual([py?.adapter.id, py?.root, py?.languageId], ["pyright", root, "python"]);
    assert.equal(await pickAdapter(join(root, "notes.txt"), root, ADAPTERS), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("pickLinters() adds a linter only where its config is found; it is never the primary", async () => {
  const root = await tree({
    "app/deno.json": "{}",
    "app/biome.json": "{}",
    "app/a.ts": "",
    "lib/b.ts": "",
  });
  try {
    const primary = await pickAdapter(join(root, "app/a.ts"), root, ADAPTERS);
    assert.equal(primary?.adapter.id, "deno");
    const linters = await pickLinters(join(root, "app/a.ts"), root, ADAPTERS);
    assert.deepEqual(linters.map((p) => [p.adapter.id, p.root]), [["biome", join(root, "app")]]);
    assert.deepEqual(await pickLinters(join(root, "lib/b.ts"), root, ADAPTERS), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
