import assert from "node:assert/strict";
import { pyrightCoverage, tomlStrings, tomlTable } from "../../adapters/pyright_coverage.ts";
import type { CoverageContext } from "../../adapters/coverage.ts";

Deno.test("tomlTable() and tomlStrings() read [tool.pyright]'s include over lines, comments aside", () => {
  const text = [
    "[project]",
    'include = ["not-this"]',
    "",
    "[ tool.pyright ]  # narrowed",
    "include = [",
    '  "src",  # the package',
    "  'tests',",
    '  "a\\"b",',
    "]",
    'exclude = ["src/gen"]',
    "[tool.ruff]",
    'include = ["x"]',
  ].join("\n");
  const table = tomlTable(text, "tool.pyright");
  assert.ok(table !== undefined);
  assert.deepEqual(tomlStrings(table, "include"), ["src", "tests", 'a"b']);
  assert.deepEqual(tomlStrings(table, "exclude"), ["src/gen"]);
  assert.equal(tomlStrings(table, "ignore"), undefined);
  assert.equal(tomlTable(text, "tool.basedpyright"), undefined);
});

Deno.test("pyright's coverage follows its config and the file list, each question, the asked file aside", async () => {
  const root = "/ws";
  const files = ["/ws/src/a.py", "/ws/tests/t.py", "/ws/docs/conf.py"];
  const texts = new Map<string, string>([
    ["/ws/pyproject.toml", '[tool.pyright]\ninclude = ["src"]\n'],
    ["/ws/tests/t.py", "uses(greet)\n"],
    ["/ws/docs/conf.py", "greet = 1\n"],
    ["/ws/other/new.py", "greet()\n"],
  ]);
  const context = (list: readonly string[], uri = "file:///ws/src/a.py") =>
    ({
      root,
      files: () => Promise.resolve(list),
      client: undefined as never,
      uri,
      readText: (path: string) => Promise.resolve(texts.get(path)),
      name: "greet",
      relative: (path: string) => path.slice(root.length + 1),
      signal: new AbortController().signal,
    }) satisfies CoverageContext;
  const hook = pyrightCoverage(["tool.pyright"]);
  const include = "pyproject.toml's [tool.pyright] include leaves";
  assert.deepEqual(await hook(context(files)), {
    partial: true,
    reason: `${include} tests/t.py, docs/conf.py out, where \`greet\` is a word`,
  });
  // The same list asked from a file it leaves out: that one is open, so searched.
  assert.deepEqual(await hook(context(files, "file:///ws/tests/t.py")), {
    partial: true,
    reason: `${include} docs/conf.py out, where \`greet\` is a word`,
  });
  // The config changes, the list does not: the answer follows the config.
  texts.set("/ws/pyproject.toml", '[tool.pyright]\ninclude = ["src", "tests", "docs"]\n');
  assert.deepEqual(await hook(context(files)), { partial: false });
  // A file created (a new list): it is matched too.
  assert.deepEqual(await hook(context([...files, "/ws/other/new.py"])), {
    partial: true,
    reason: `${include} other/new.py out, where \`greet\` is a word`,
  });
  // And the first list again, with the first config.
  texts.set("/ws/pyproject.toml", '[tool.pyright]\ninclude = ["src"]\n');
  assert.equal((await hook(context(files))).reason?.includes("tests/t.py, docs/conf.py"), true);
  // The same text, first as pyproject.toml (no [tool.pyright]: nothing configured), then as
  // pyrightconfig.json (include src): each read as what it is, not as the text parsed before.
  const json = '{"include": ["src"]}';
  texts.set("/ws/pyproject.toml", json);
  assert.deepEqual(await hook(context(files)), { partial: false });
  texts.delete("/ws/pyproject.toml");
  texts.set("/ws/pyrightconfig.json", json);
  assert.deepEqual(await hook(context(files)), {
    partial: true,
    reason:
      "pyrightconfig.json's include leaves tests/t.py, docs/conf.py out, where `greet` is a word",
  });
});
