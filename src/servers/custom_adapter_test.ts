import assert from "node:assert/strict";
import { join } from "node:path";
import { ADAPTERS } from "../../adapters/mod.ts";
import { parseConfig } from "../config.ts";
import { configuredAdapters } from "./custom_adapter.ts";
import { pickAdapter, pickLinters } from "./pick.ts";

const servers = (text: string) =>
  parseConfig(text, "config.jsonc", { knownServers: ADAPTERS.map((a) => a.id) }).servers;

async function tree(files: Record<string, string>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-custom-" }));
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
  return root;
}

Deno.test("configuredAdapters() adds a server from config: its files, language id, markers, untested", () => {
  const adapters = configuredAdapters(
    ADAPTERS,
    servers(`{"servers": {"nix": {
      "command": ["nil", "--stdio"], "extensions": [".nix"], "filenames": ["flake.lock"],
      "rootMarkers": ["flake.nix"], "env": {"NIL_LOG": "warn"}
    }}}`),
  );
  const nix = adapters.find((a) => a.id === "nix");
  assert.ok(nix);
  assert.deepEqual(nix.languages, { ".nix": "nix" });
  assert.deepEqual(nix.filenames, { "flake.lock": "lock" });
  assert.deepEqual(nix.rootMarkers, ["flake.nix"]);
  assert.deepEqual(nix.env, { NIL_LOG: "warn" });
  assert.equal(nix.kind, "language");
  assert.equal(nix.tested, false);
  assert.equal(nix.origin, "config");
  assert.equal(adapters.length, ADAPTERS.length + 1);
});

Deno.test("configuredAdapters() overrides a shipped adapter key by key, the rest kept", () => {
  const [pyright] = configuredAdapters(
    ADAPTERS,
    servers(`{"servers": {"pyright": {"extensions": [".py", ".pyw"], "rootMarkers": ["setup.py"],
      "initializationOptions": {"x": 1}}}}`),
  ).filter((a) => a.id === "pyright");
  const shipped = ADAPTERS.find((a) => a.id === "pyright")!;
  assert.deepEqual(pyright.languages, { ".py": "python", ".pyw": "python" });
  assert.deepEqual(pyright.rootMarkers, ["setup.py"]);
  assert.equal(pyright.installHint, shipped.installHint);
  assert.equal(pyright.resolve, shipped.resolve);
  // The user's settings and initializationOptions are layered by the manager, after what the
  // adapter finds at start: they are not folded in here.
  assert.equal(pyright.initializationOptions, shipped.initializationOptions);
});

Deno.test("configuredAdapters() layers a workspace's settings under the adapter's own", () => {
  const [yaml] = configuredAdapters(ADAPTERS, {}, {
    file: "/repo/.lspgate.jsonc",
    servers: { yaml: { settings: { yaml: { validate: false } } } },
  }).filter((a) => a.id === "yaml");
  const settings = yaml.settings as { yaml: Record<string, unknown> };
  assert.equal(settings.yaml.validate, false);
  assert.deepEqual(settings.yaml.schemaStore, { enable: false });
});

Deno.test("a server added for a known file type is preferred; basedpyright when configured", async () => {
  const root = await tree({ "pyproject.toml": "", "a.py": "", "b.sh": "" });
  try {
    const plain = await pickAdapter(join(root, "a.py"), root, ADAPTERS);
    assert.equal(plain?.adapter.id, "pyright");
    const based = configuredAdapters(
      ADAPTERS,
      servers(`{"servers": {"basedpyright": {"preferred": true}}}`),
    );
    assert.equal((await pickAdapter(join(root, "a.py"), root, based))?.adapter.id, "basedpyright");
    const mine = configuredAdapters(
      ADAPTERS,
      servers(`{"servers": {"shells": {"command": ["/opt/sh-lsp"], "extensions": [".sh"]}}}`),
    );
    const picked = await pickAdapter(join(root, "b.sh"), root, mine);
    assert.deepEqual([picked?.adapter.id, picked?.languageId], ["shells", "sh"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a linter added in config applies only where its marker is", async () => {
  const root = await tree({ "a/.mylint": "", "a/x.py": "", "b/y.py": "" });
  try {
    const adapters = configuredAdapters(
      ADAPTERS,
      servers(`{"servers": {"mylint": {"command": ["mylint", "lsp"], "extensions": [".py"],
        "kind": "linter", "rootMarkers": [".mylint"]}}}`),
    );
    const a = await pickLinters(join(root, "a/x.py"), root, adapters);
    const b = await pickLinters(join(root, "b/y.py"), root, adapters);
    assert.deepEqual(a.map((p) => [p.adapter.id, p.root]), [["mylint", join(root, "a")]]);
    assert.deepEqual(b, []);
    // A linter never becomes a file's language server.
    assert.equal((await pickAdapter(join(root, "b/y.py"), root, adapters))?.adapter.id, "pyright");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("configuredAdapters() drops the symbol index of a server the user's config changes", () => {
  const adapters = configuredAdapters(
    ADAPTERS,
    servers(`{"servers": {"bash": {"settings": {"bashIde": {"globPattern": "**/*"}}}}}`),
  );
  const byId = new Map(adapters.map((a) => [a.id, a]));
  // Its own glob may now take files the index does not list: a search asks it.
  assert.equal(byId.get("bash")?.symbolIndex, undefined);
  assert.deepEqual(byId.get("pyright")?.symbolIndex?.extensions, [".py", ".pyi"]);
});
