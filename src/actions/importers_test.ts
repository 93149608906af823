import assert from "node:assert/strict";
import { uses } from "./importers.ts";

Deno.test("uses() tells a re-export from an import, resolving relative script imports", () => {
  const a = "/w/src/a.ts";
  assert.equal(uses("/w/src/index.ts", 'export * from "./a.ts";\n', a), "reexports");
  assert.equal(uses("/w/src/index.ts", "export {\n  f,\n} from './a.js';\n", a), "reexports");
  // Imported, then exported in a statement of its own.
  assert.equal(
    uses("/w/src/b.ts", 'import { f as g } from "./a";\nexport { g };\n', a),
    "reexports",
  );
  assert.equal(uses("/w/src/b.ts", 'import f from "./a";\nexport default f;\n', a), "reexports");
  assert.equal(uses("/w/src/b.ts", 'import { f } from "./a";\nexport { h };\n', a), "imports");
  assert.equal(uses("/w/src/b.ts", 'import { f } from "./a";\n', a), "imports");
  assert.equal(uses("/w/src/b.ts", 'import { f } from "./ab";\n', a), undefined);
  assert.equal(uses("/w/lib/b.ts", 'import { f } from "./a";\n', a), undefined);
  assert.equal(uses("/w/src/b.ts", 'const s = "from ./a";\n', a), undefined);
  // A folder's index: named by the folder, "." from beside it.
  assert.equal(uses("/w/src/c.ts", 'import { f } from ".";\n', "/w/src/index.ts"), "imports");
  assert.equal(uses("/w/c.ts", 'import { f } from "./src";\n', "/w/src/index.ts"), "imports");
  assert.equal(
    uses("/w/c.ts", 'const m = await import("./src/index.ts");\n', "/w/src/index.ts"),
    "imports",
  );
  // Python: a package's __init__ stands for the package, so what it imports it passes on.
  assert.equal(uses("/w/pkg/__init__.py", "from .a import f\n", "/w/pkg/a.py"), "reexports");
  assert.equal(uses("/w/c.py", "from pkg import f\n", "/w/pkg/__init__.py"), "imports");
});
