// Servers are confined by default: a workspace file that imports a file outside the root (module
// resolution into `../`, a config's extra search path) gets none of its contents back in any
// answer, with default flags, wherever bubblewrap is installed (CI installs it).
import assert from "node:assert/strict";
import { join } from "node:path";
import { locate } from "../helpers/locate.ts";
import { hostileRepo, ok, runLspgate } from "./hostile.ts";
import { bwrapAvailable } from "../../src/lsp/sandbox.ts";

const OUTSIDE_SECRET = "OUTSIDE-CONTENTS-91d2e7";

interface Case {
  name: string;
  files: Record<string, string>;
  /** The file that imports from outside, and the imported name in it. */
  file: string;
  name_in_file: string;
  /** Outside files, relative to the outside folder. */
  outside: Record<string, string>;
}

const cases: Case[] = [
  {
    name: "typescript-language-server",
    files: {
      "package.json": `{"name": "victim", "private": true}\n`,
      "tsconfig.json": `{"compilerOptions": {"strict": true}}\n`,
      "src/main.ts":
        `import { secret } from "../../outside/secret";\n\nexport const got = secret;\n`,
    },
    file: "src/main.ts",
    name_in_file: "secret;",
    outside: { "secret.ts": `export const secret = "${OUTSIDE_SECRET}";\n` },
  },
  {
    name: "deno lsp",
    files: {
      "deno.json": "{}\n",
      "main.ts": `import { secret } from "../outside/secret.ts";\n\nexport const got = secret;\n`,
    },
    file: "main.ts",
    name_in_file: "secret;",
    outside: { "secret.ts": `export const secret = "${OUTSIDE_SECRET}";\n` },
  },
  {
    name: "pyright (extraPaths pointing outside)",
    files: {
      "pyrightconfig.json": `{"extraPaths": ["../outside"]}\n`,
      "main.py": `from secret_mod import SECRET\n\ngot = SECRET\n`,
    },
    file: "main.py",
    name_in_file: "SECRET\n",
    outside: {
      "secret_mod.py":
        `from typing import Literal\nSECRET: Literal["${OUTSIDE_SECRET}"] = "${OUTSIDE_SECRET}"\n`,
    },
  },
];

for (const c of cases) {
  Deno.test(`default flags (sandboxed): ${c.name} answers nothing from a file outside the root`, async () => {
    assert.ok(
      await bwrapAvailable(),
      "bubblewrap is needed (apt-get install bubblewrap; .ci/run installs it)",
    );
    const repo = await hostileRepo(c.files);
    for (const [rel, text] of Object.entries(c.outside)) {
      await Deno.writeTextFile(join(repo.outside, rel), text);
    }
    try {
      const text = await Deno.readTextFile(join(repo.root, c.file));
      const at = locate(text, c.name_in_file);
      const { lines, stdout, stderr } = await runLspgate(repo.root, [
        { id: 1, action: "hover", file: c.file, ...at },
        { id: 2, action: "definition", file: c.file, ...at },
        { id: 3, action: "type_definition", file: c.file, ...at },
        { id: 4, action: "diagnostics", file: c.file },
        { id: 5, action: "symbols", file: "*", query: "secret" },
        { id: 6, action: "status" },
      ]);
      assert.equal(ok(lines[5]).sandboxed, true, JSON.stringify(lines[5]));
      // Every answer came back (success or a structured error), and none carries the contents.
      assert.equal(lines.length, 6);
      assert.ok(!stdout.includes(OUTSIDE_SECRET), `outside contents leaked:\n${stdout}`);
      assert.ok(!stderr.includes(OUTSIDE_SECRET), `outside contents leaked on stderr`);
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

for (const c of cases) {
  Deno.test(`control: without the sandbox, ${c.name} does reach the outside file (what the sandbox stops)`, async () => {
    const repo = await hostileRepo(c.files);
    for (const [rel, text] of Object.entries(c.outside)) {
      await Deno.writeTextFile(join(repo.outside, rel), text);
    }
    try {
      const text = await Deno.readTextFile(join(repo.root, c.file));
      const { lines } = await runLspgate(repo.root, [
        { id: 1, action: "hover", file: c.file, ...locate(text, c.name_in_file) },
      ], { flags: ["--sandbox", "none"] });
      const hover = ok(lines[0]);
      assert.equal(hover.sandboxed, false);
      // Proves the sandboxed test above would notice a leak.
      assert.match(String(hover.text), new RegExp(OUTSIDE_SECRET));
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}
