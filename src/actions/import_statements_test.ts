import assert from "node:assert/strict";
import { bindings, pythonImports, scriptImports } from "./import_statements.ts";

Deno.test("bindings() lists the local names an import clause binds", () => {
  assert.deepEqual(bindings(" { a, b as c, type T } "), ["a", "c", "T"]);
  assert.deepEqual(bindings(" D, { a } "), ["a", "D"]);
  assert.deepEqual(bindings(" * as ns "), ["ns"]);
  assert.deepEqual(bindings(" type { T } "), ["T"]);
});

Deno.test("scriptImports() counts an import whose binding the file exports as passed on", () => {
  const text = 'import { f } from "./a";\nimport { g } from "b";\nimport * as ns from "c";\n' +
    'export * from "./d";\nexport { f, ns as space };\nimport "./e.css";\n' +
    'const m = await import("./f.ts");\n';
  assert.deepEqual(scriptImports(text), [
    { specifier: "./a", exported: true },
    { specifier: "b", exported: false },
    { specifier: "c", exported: true },
    { specifier: "./d", exported: true },
    { specifier: "./e.css", exported: false },
    { specifier: "./f.ts", exported: false },
  ]);
});

Deno.test("pythonImports() reads from-imports over parentheses and continued lines, and import lists", () => {
  const text = "from pkg import (\n    a,\n    b as bee,\n)\nfrom .c import d \\\n  , e\n" +
    "import os.path as p, sys  # two\n    from x.y import *\n";
  assert.deepEqual(pythonImports(text).map(({ module, names }) => ({ module, names })), [
    { module: "pkg", names: ["a", "b"] },
    { module: ".c", names: ["d", "e"] },
    { module: "x.y", names: [] },
    { module: "os.path", names: [] },
    { module: "sys", names: [] },
  ]);
});

Deno.test("pythonImports() counts a name in __all__ or imported as itself as re-exported", () => {
  const text =
    "from .a import f\nfrom .b import g as g\nfrom .c import h as k\nfrom .d import i\n" +
    "__all__ = ['f', 'k']\n";
  assert.deepEqual(pythonImports(text).map((i) => i.exported), [true, true, true, false]);
});
