// astro-ls `require`s an Astro integration's editor module (`@astrojs/svelte`'s dist/editor.cjs,
// from the project's node_modules) for each .svelte file the project holds, and has no setting
// against it: for a root the user has not trusted lspgate does not start it there (under every
// sandbox mode), and serves a root without it. A trusted root runs the module, sandboxed: its
// marker shows in the hover, which shows the test would see it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { hostileRepo, markers, ok, runLspgate, SECRET } from "./hostile.ts";
import { TOOLS_DIR } from "../tools.ts";

/** An editor module that leaves a mark outside (if it can), prints a secret, and types a marker. */
const EDITOR = `try { require("fs").writeFileSync("$OUTSIDE/marker-editor", "ran"); } catch {}
console.error(${JSON.stringify(SECRET)});
exports.toTSX = (code, name) => \`export default function \${name}(_props: { EDITOR_RAN: true }) {}\`;
`;

const files = {
  "package.json": '{ "name": "site", "dependencies": { "@astrojs/svelte": "5.0.0" } }\n',
  "src/pages/index.astro": '---\nimport Comp from "./Comp.svelte";\nconst title: string = "hi";\n' +
    "---\n<Comp /><h1>{title}</h1>\n",
  "src/pages/Comp.svelte": "<p>hi</p>\n",
  "node_modules/@astrojs/svelte/package.json":
    '{ "name": "@astrojs/svelte", "version": "5.0.0", "main": "dist/index.js" }\n',
  "node_modules/@astrojs/svelte/dist/index.js": "",
  "node_modules/@astrojs/svelte/dist/editor.cjs": EDITOR,
};

/** Hovers on the imported component and on `title`, astro-ls given the test's TypeScript. */
async function hovers(base: string, root: string, flags: string[]) {
  const config = join(base, "config.json");
  // Its real path: the sandbox shows astro-ls's install folder by that, not through a symlink.
  const tsdk = await Deno.realPath(join(TOOLS_DIR, "astro", "node_modules", "typescript", "lib"));
  await Deno.writeTextFile(
    config,
    JSON.stringify({ servers: { astro: { initializationOptions: { typescript: { tsdk } } } } }),
  );
  const file = "src/pages/index.astro";
  return await runLspgate(root, [
    { id: 1, action: "hover", file, line: 2, symbol: "Comp" },
    { id: 2, action: "hover", file, line: 3, symbol: "title" },
  ], { flags: ["--config", config, ...flags] });
}

for (const sandbox of ["auto", "none"]) {
  Deno.test(`astro (sandbox ${sandbox}): an integration's editor module in node_modules keeps astro-ls from starting for an untrusted root; without it the root is served`, async () => {
    const repo = await hostileRepo(files);
    try {
      const { lines, stdout, stderr } = await hovers(repo.base, repo.root, ["--sandbox", sandbox]);
      for (const line of lines) {
        const error = line.error as { code: string; message: string };
        assert.equal(error?.code, "SERVER_START_FAILED", JSON.stringify(line));
        assert.match(error.message, /node_modules\/@astrojs\/svelte \(repository code\)/);
      }
      assert.ok(!stdout.includes(SECRET) && !stderr.includes(SECRET), "the module ran");
      assert.deepEqual(await markers(repo.outside), []);
      await Deno.remove(join(repo.root, "node_modules"), { recursive: true });
      const served = await hovers(repo.base, repo.root, ["--sandbox", sandbox]);
      assert.match(String(ok(served.lines[1]).text), /const title: string/);
      assert.doesNotMatch(String(ok(served.lines[0]).text), /EDITOR_RAN/);
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

Deno.test("astro: a trusted root's integration editor module runs, sandboxed: its marker shows in the hover, and nothing is written outside", async () => {
  const repo = await hostileRepo(files);
  try {
    const { lines } = await hovers(repo.base, repo.root, ["--trust", "--sandbox", "bwrap"]);
    assert.match(String(ok(lines[0]).text), /EDITOR_RAN: true/);
    assert.deepEqual(await markers(repo.outside), []);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});
