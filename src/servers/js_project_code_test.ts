import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { ADAPTERS } from "../../adapters/mod.ts";
import { LspGateError } from "../errors.ts";

/** Writes `files` (workspace-relative path → text) into a new root; a text of `null` is a folder. */
async function workspace(files: Record<string, string | null>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_js_code_" }));
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, text === null ? path : dirname(path)), { recursive: true });
    if (text !== null) await Deno.writeTextFile(join(root, path), text);
  }
  return root;
}

/** How `id`'s adapter answers for `root`: "refused: <files>", or how far a start got. */
async function outcome(id: string, root: string, trusted = false): Promise<string> {
  const adapter = ADAPTERS.find((a) => a.id === id)!;
  try {
    await adapter.resolve({ root, workspace: root, trusted });
    return "found";
  } catch (e) {
    assert.ok(e instanceof LspGateError, String(e));
    if (e.code !== "SERVER_START_FAILED") return e.code;
    assert.match(e.message, /repository code\), and the root is not trusted \(`--trust` runs it/);
    return `refused: ${(e.data as { files: string[] }).files.join(", ")}`;
  }
}

/** Served: the adapter got as far as finding its program (installed here, or not). */
function served(answer: string): boolean {
  return answer === "found" || answer === "SERVER_NOT_INSTALLED";
}

const PLUGIN = "module.exports = () => ({ version: 2.1 });\n";

Deno.test("vue does not start for an untrusted root whose tsconfig names vueCompilerOptions.plugins; a trusted one, or a config without plugins, is served", async () => {
  const root = await workspace({
    "tsconfig.json": '{ "vueCompilerOptions": { "plugins": ["./plugin.js"] } }',
    "plugin.js": PLUGIN,
    "App.vue": "<template><p/></template>\n",
  });
  try {
    assert.equal(await outcome("vue", root), "refused: tsconfig.json");
    assert.ok(served(await outcome("vue", root, true)));
    await Deno.writeTextFile(join(root, "tsconfig.json"), '{ "vueCompilerOptions": {} }');
    assert.ok(served(await outcome("vue", root)));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("vue finds the plugins a tsconfig takes from an extended config (file or package) or a referenced one", async () => {
  const cases: Record<string, string | null>[] = [
    {
      "web/jsconfig.json": '{ "extends": "../configs/base" }',
      "configs/base.json": '{ "vueCompilerOptions": { "plugins": [{ "name": "evil" }] } }',
    },
    {
      "web/tsconfig.json": '{ "extends": ["@acme/tsconfig/vue.json"] }',
      "node_modules/@acme/tsconfig/vue.json": '{ "vueCompilerOptions": { "plugins": ["x"] } }',
    },
    {
      // Reached only through the package's exports: its JSON mentions vueCompilerOptions.
      "web/tsconfig.json": '{ "extends": "@acme/tsconfig/vue" }',
      "node_modules/@acme/tsconfig/dist/v.json": '{ "vueCompilerOptions": { "plugins": ["x"] } }',
    },
    {
      "web/tsconfig.json": '{ "files": [], "references": [{ "path": "./app.json" }] }',
      "web/app.json": '// JSONC\n{ "vueCompilerOptions": { "plugins": ["x"], }, }',
    },
  ];
  for (const files of cases) {
    const root = await workspace(files);
    try {
      assert.match(await outcome("vue", root), /^refused: web\/[jt]sconfig\.json$/);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  }
  const clean = await workspace({
    "tsconfig.json": '{ "extends": "@vue/tsconfig/tsconfig.dom.json" }',
    "node_modules/@vue/tsconfig/tsconfig.dom.json": '{ "compilerOptions": { "lib": ["DOM"] } }',
  });
  try {
    assert.ok(served(await outcome("vue", clean)));
  } finally {
    await Deno.remove(clean, { recursive: true });
  }
});

Deno.test("astro does not start for an untrusted root holding an integration's editor module, the project's prettier, or a prettier config that runs code", async () => {
  const cases: [Record<string, string | null>, string][] = [
    [{ "node_modules/@astrojs/svelte/dist/editor.cjs": PLUGIN }, "node_modules/@astrojs/svelte"],
    [{ "site/node_modules/@astrojs/vue": null }, "site/node_modules/@astrojs/vue"],
    [
      { "node_modules/ui/node_modules/@astrojs/vue": null },
      "node_modules/ui/node_modules/@astrojs/vue",
    ],
    [
      { "node_modules/.pnpm/ui@1/node_modules/@astrojs/svelte": null },
      "node_modules/.pnpm/ui@1/node_modules/@astrojs/svelte",
    ],
    [{ "node_modules/prettier/index.js": PLUGIN }, "node_modules/prettier"],
    [{ "node_modules/prettier-plugin-astro": null }, "node_modules/prettier-plugin-astro"],
    [{ "prettier.config.mjs": "export default {};\n" }, "prettier.config.mjs"],
    [{ "docs/.prettierrc.cjs": "module.exports = {};\n" }, "docs/.prettierrc.cjs"],
    [{ ".prettierrc": '{ "plugins": ["./evil.js"] }' }, ".prettierrc"],
    [{ ".prettierrc.yaml": '"@acme/prettier-config"\n' }, ".prettierrc.yaml"],
    [{ "package.json": '{ "prettier": "@acme/prettier-config" }' }, "package.json"],
  ];
  for (const [files, file] of cases) {
    const root = await workspace({ ...files, "src/pages/index.astro": "<h1>hi</h1>\n" });
    try {
      assert.equal(await outcome("astro", root), `refused: ${file}`);
      assert.ok(served(await outcome("astro", root, true)), file);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  }
});

Deno.test("astro is served for an untrusted root whose packages and prettier config run nothing", async () => {
  const root = await workspace({
    "package.json": '{ "dependencies": { "astro": "5.0.0" }, "prettier": { "semi": false } }',
    ".prettierrc.json": '{ "singleQuote": true }',
    ".prettierrc.toml": "semi = false\n",
    "node_modules/astro/package.json": '{ "name": "astro", "version": "5.0.0" }',
    "node_modules/@astrojs/check": null,
    "src/pages/index.astro": "<h1>hi</h1>\n",
  });
  try {
    assert.ok(served(await outcome("astro", root)));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("astro does not start for an untrusted root with more files than are looked through, and says so", async () => {
  const root = await workspace({ "src/pages/index.astro": "<h1>hi</h1>\n" });
  try {
    // Past 50,000 entries the answer is "maybe": refused, never a silent "nothing found".
    for (let i = 0; i < 260; i++) {
      const dir = join(root, "gen", String(i));
      await Deno.mkdir(dir, { recursive: true });
      await Promise.all(
        Array.from({ length: 200 }, (_, j) => Deno.writeTextFile(join(dir, `${j}`), "")),
      );
    }
    const adapter = ADAPTERS.find((a) => a.id === "astro")!;
    const refused = await adapter.resolve({ root, workspace: root, trusted: false }).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(refused instanceof LspGateError, String(refused));
    assert.match(refused.message, /… \(too many files to look through\) \(repository code\)/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
