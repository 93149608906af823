import assert from "node:assert/strict";
import { join } from "node:path";
import { WorkspaceRoot } from "../permissions/workspace.ts";
import { findImporters } from "./importers.ts";

Deno.test("findImporters() finds the files whose import lines name the module, per language", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_importers_" }));
  const files: Record<string, string> = {
    "src/util.ts": "export const x = 1;\n",
    "src/a.ts": 'import { x } from "./util";\n',
    "src/deep/b.ts": "import { x } from '../util.ts';\n",
    "src/c.js": 'const { x } = require("./util.js");\n',
    "src/utility.ts": 'import { y } from "./utilities";\n',
    "src/mentions.ts": "// util is mentioned here but not imported\n",
    "node_modules/dep/index.ts": 'import { x } from "../../src/util";\n',
    "pkg/mod.py": "X = 1\n",
    "pkg/user.py": "from pkg.mod import X\n",
    "pkg/user2.py": "import pkg.mod as m\n",
    "pkg/other.py": "import model\n",
    "c/api.h": "int f(void);\n",
    "c/main.c": '#include "api.h"\n',
    "c/other.c": '#include "apix.h"\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, rel), text);
  }
  try {
    const workspace = await WorkspaceRoot.open(root);
    const rel = async (file: string) =>
      (await findImporters(workspace, await workspace.resolve(file))).map((p) =>
        workspace.relative(p)
      ).sort();
    assert.deepEqual(await rel("src/util.ts"), ["src/a.ts", "src/c.js", "src/deep/b.ts"]);
    assert.deepEqual(await rel("pkg/mod.py"), ["pkg/user.py", "pkg/user2.py"]);
    assert.deepEqual(await rel("c/api.h"), ["c/main.c"]);
    assert.deepEqual(await rel("src/a.ts"), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
