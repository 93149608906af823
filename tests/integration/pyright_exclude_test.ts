// pyright searches only the files its include/exclude keep, pyright's default exclude
// (`**/node_modules`, `**/__pycache__`, `**/.*`) where the config gives none: a helper's find,
// references to `greet` answered util.py and tools/smoke.py, complete, and the applied rename broke
// .ci/smoke.py. Files left out make an answer about a name partial, naming them, when they hold
// the name as a word; real lspgate over real pyright.
import assert from "node:assert/strict";
import { join } from "node:path";
import { locate } from "../helpers/locate.ts";
import { hostileRepo, runLspgate } from "../security/hostile.ts";

interface Line {
  ok: boolean;
  content?: { text: string }[];
  details?: Record<string, unknown>;
  error?: { code: string; message: string };
}

const UTIL = "def greet(name: str) -> str:\n    return name\n\n\ndef shout(s: str) -> str:\n" +
  "    return s.upper()\n";
const SMOKE = "from pkg.util import greet\n\nprint(greet('ci'))\n";

Deno.test("pyright without exclude: a use in a dot-folder makes references partial, naming it; the rename apply is refused", async () => {
  const repo = await hostileRepo({
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/util.py": UTIL,
    ".ci/smoke.py": SMOKE,
    "tools/smoke.py": SMOKE + "from pkg.util import shout\n\nprint(shout('x'))\n",
  });
  try {
    const util = "pkg/util.py";
    const greet = { file: util, ...locate(UTIL, "greet") };
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "references", ...greet },
      { id: 2, action: "rename", ...greet, new_name: "hello", apply: true },
      { id: 3, action: "references", file: util, ...locate(UTIL, "shout") },
    ], { flags: ["--allow-mutations"] }) as unknown as { lines: Line[] };
    const reason = "pyright's default exclude (**/node_modules, **/__pycache__, **/.*) leaves " +
      ".ci/smoke.py out, where `greet` is a word";
    assert.equal(lines[0].ok, true, JSON.stringify(lines[0]));
    assert.equal(lines[0].details?.partial, true, lines[0].content?.[0].text);
    assert.equal(lines[0].details?.partialReason, reason);
    const files = (lines[0].details?.locations as { file: string }[]).map((l) => l.file);
    assert.deepEqual([...new Set(files)].sort(), ["pkg/util.py", "tools/smoke.py"]);
    assert.equal(lines[1].ok, false, JSON.stringify(lines[1]));
    assert.equal(lines[1].error?.code, "ACTION_NOT_ALLOWED");
    assert.equal(await Deno.readTextFile(join(repo.root, ".ci/smoke.py")), SMOKE);
    assert.equal(await Deno.readTextFile(join(repo.root, util)), UTIL);
    // No file left out holds `shout`: complete.
    assert.equal(lines[2].details?.partial, false, lines[2].content?.[0].text);
    assert.equal(lines[2].details?.total, 3);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("pyright include: only files left out that hold the name make references partial, named with the config and the default exclude", async () => {
  const repo = await hostileRepo({
    "pyrightconfig.json": JSON.stringify({ include: ["pkg", "tools"] }),
    "pkg/__init__.py": "",
    "pkg/util.py": UTIL,
    "tools/.ci/smoke.py": SMOKE,
    "scripts/run.py": SMOKE,
    "tools/smoke.py": "from pkg.util import shout\n\nprint(shout('x'))\n",
    "docs/conf.py": "project = 'demo'\n",
  });
  try {
    const util = "pkg/util.py";
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "references", file: util, ...locate(UTIL, "greet") },
      { id: 2, action: "references", file: util, ...locate(UTIL, "shout") },
    ]) as unknown as { lines: Line[] };
    assert.equal(lines[0].details?.partial, true, lines[0].content?.[0].text);
    assert.equal(
      lines[0].details?.partialReason,
      "pyrightconfig.json's include and pyright's default exclude (**/node_modules, " +
        "**/__pycache__, **/.*) leave scripts/run.py, tools/.ci/smoke.py out, where `greet` is a word",
    );
    // docs/ is left out too, but holds no `shout`.
    assert.equal(lines[1].details?.partial, false, lines[1].content?.[0].text);
    assert.equal(lines[1].details?.total, 3);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("pyright without exclude: a project-local environment in a dot-folder (.pixi/) makes nothing partial", async () => {
  const site = ".pixi/envs/default/lib/python3.11/site-packages";
  const files: Record<string, string> = {
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/util.py": UTIL,
    "main.py": SMOKE,
  };
  // Installed packages that use the name too (a reviewer's find: every name was partial there).
  for (let i = 0; i < 250; i++) files[`${site}/lib${i}/mod.py`] = "def greet():\n    pass\n";
  const repo = await hostileRepo(files);
  try {
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "references", file: "pkg/util.py", ...locate(UTIL, "greet") },
    ]) as unknown as { lines: Line[] };
    assert.equal(lines[0].ok, true, JSON.stringify(lines[0]));
    assert.equal(lines[0].details?.partial, false, JSON.stringify(lines[0].details));
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});
