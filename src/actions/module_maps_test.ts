import assert from "node:assert/strict";
import { packageTargets } from "./module_maps.ts";

Deno.test("packageTargets() reads exports as a string, conditions, subpaths and patterns", () => {
  assert.equal(packageTargets(undefined, "."), undefined);
  assert.deepEqual(packageTargets("./src/index.ts", "."), ["./src/index.ts"]);
  assert.deepEqual(packageTargets("./src/index.ts", "./a"), []);
  assert.deepEqual(
    packageTargets({ types: "./src/index.ts", default: "./dist/index.js" }, "."),
    ["./src/index.ts", "./dist/index.js"],
  );
  const map = { ".": "./src/index.ts", "./util/*": { import: "./src/util/*.ts" } };
  assert.deepEqual(packageTargets(map, "./util/a"), ["./src/util/a.ts"]);
  assert.deepEqual(packageTargets(map, "./other"), []);
  assert.deepEqual(packageTargets({ "#internal/*": "./src/*.ts" }, "#internal/a"), [
    "./src/a.ts",
  ]);
});
