import assert from "node:assert/strict";
import { tomlStrings, tomlTable } from "../../adapters/pyright_coverage.ts";

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
