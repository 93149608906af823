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
    "package.json": '{"private": true, "workspaces": ["packages/*"]}',
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

Deno.test("pickAdapter() takes no package.json that names no package for a root: a published package's subpath shims", async () => {
  // date-fns puts `{"sideEffects": false}` in each function's folder, zod `{"main": …}` in v3/:
  // each was a project of its own, and references from the rest never searched it.
  const root = await tree({
    "package.json": '{"name": "date-fns", "version": "2.30.0"}',
    "addDays/package.json": '{"sideEffects": false, "typings": "../typings.d.ts"}',
    "addDays/index.js": "",
    "v3/package.json": '{"type": "module", "main": "./index.cjs"}',
    "v3/index.ts": "",
    "app/package.json": '{"private": true, "dependencies": {}}',
    "app/main.ts": "",
  });
  try {
    for (const file of ["addDays/index.js", "v3/index.ts"]) {
      const pick = await pickAdapter(join(root, file), root, ADAPTERS);
      assert.deepEqual([pick?.adapter.id, pick?.root], ["typescript", root], file);
    }
    const app = await pickAdapter(join(root, "app/main.ts"), root, ADAPTERS);
    assert.deepEqual([app?.adapter.id, app?.root], ["typescript", join(root, "app")]);
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

Deno.test("pickAdapter() knows files by name (Dockerfile) and dotfiles (.bashrc)", async () => {
  const root = await tree({ "Dockerfile": "", "web/Containerfile": "", ".bashrc": "" });
  try {
    const docker = await pickAdapter(join(root, "Dockerfile"), root, ADAPTERS);
    const container = await pickAdapter(join(root, "web/Containerfile"), root, ADAPTERS);
    const bashrc = await pickAdapter(join(root, ".bashrc"), root, ADAPTERS);
    assert.deepEqual([docker?.adapter.id, docker?.languageId], ["dockerfile", "dockerfile"]);
    assert.equal(container?.adapter.id, "dockerfile");
    assert.deepEqual([bashrc?.adapter.id, bashrc?.languageId], ["bash", "shellscript"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("pickAdapter() passes over a server that is not installed for a tied one that is", async () => {
  const root = await tree({ "pyproject.toml": "", "a.py": "" });
  const missing = {
    ...ADAPTERS.find((a) => a.id === "pyright")!,
    installed: () => Promise.resolve(false),
  };
  const found = {
    ...ADAPTERS.find((a) => a.id === "basedpyright")!,
    installed: () => Promise.resolve(true),
  };
  try {
    const others = ADAPTERS.filter((a) => a.id !== "pyright" && a.id !== "basedpyright");
    const picked = await pickAdapter(join(root, "a.py"), root, [missing, found, ...others]);
    assert.equal(picked?.adapter.id, "basedpyright");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("pickLinters() adds ruff only where the project configures Ruff", async () => {
  const root = await tree({
    "with/pyproject.toml": '[project]\nname = "x"\n\n[tool.ruff.lint]\nselect = ["F"]\n',
    "with/a.py": "",
    "without/pyproject.toml": '[project]\nname = "y"\n',
    "without/b.py": "",
    "own/ruff.toml": "",
    "own/c.py": "",
  });
  try {
    const ids = async (file: string) =>
      (await pickLinters(join(root, file), root, ADAPTERS)).map((p) => [p.adapter.id, p.root]);
    assert.deepEqual(await ids("with/a.py"), [["ruff", join(root, "with")]]);
    assert.deepEqual(await ids("without/b.py"), []);
    assert.deepEqual(await ids("own/c.py"), [["ruff", join(root, "own")]]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
