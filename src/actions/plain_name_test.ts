import assert from "node:assert/strict";
import { checkNewName } from "../syntax/mod.ts";
import { plainName } from "./plain_name.ts";

// Every name plainName() lets skip the grammar check passes that check; every one the check
// refuses is not let through (the fast path only ever skips a check that would find nothing).
const C_SOURCE = "#include <stddef.h>\nstruct point { int x; };\nint add_counts(int left) {\n" +
  "  struct point p = {left};\n  return p.x + left;\n}\n";
const NAMES = [
  "sum",
  "add_counts2",
  "_private",
  "size_t",
  "uint8_t",
  "bool",
  "int",
  "return",
  "two words",
  "名前",
  "x-y",
  "NULL",
];

for (
  const [what, line, column] of [
    ["function name", 3, 5],
    ["parameter", 3, 20],
    ["field", 5, 12],
  ] as const
) {
  Deno.test(`plainName() skips only names the C grammar check accepts (${what})`, async () => {
    for (const name of NAMES) {
      const problem = await checkNewName("c", C_SOURCE, { line, column }, name);
      if (plainName("c", name)) assert.equal(problem, undefined, `${name}: ${problem}`);
    }
    assert.ok(plainName("c", "sum"));
    assert.ok(!plainName("c", "size_t"));
    assert.ok(!plainName("python", "sum"), "languages with soft keywords keep the check");
  });
}
