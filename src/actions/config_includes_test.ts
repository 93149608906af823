import assert from "node:assert/strict";
import { configIncludes } from "./config_includes.ts";

function check(config: string, files: string[]): boolean[] {
  const includes = configIncludes(config);
  assert.ok(includes, `an answer for ${config}`);
  return files.map(includes);
}

Deno.test("configIncludes() reads a folder in `include` as everything under it", () => {
  assert.deepEqual(
    check('{ "include": ["src"] }', [
      "src/a.ts",
      "src/deep/b.ts",
      "scripts/c.ts",
      "vite.config.ts",
    ]),
    [true, true, false, false],
  );
});

Deno.test("configIncludes() matches wildcards and leaves out `exclude`, folders included", () => {
  const config = `{
    // JSONC, as tsc reads it
    "include": ["./src/**/*.ts", "types/*.d.ts",],
    "exclude": ["src/legacy", "**/*.spec.ts"],
  }`;
  assert.deepEqual(
    check(config, [
      "src/a.ts",
      "src/legacy/old.ts",
      "src/a.spec.ts",
      "types/global.d.ts",
      "types/x/deep.d.ts",
    ]),
    [true, false, false, true, false],
  );
});

Deno.test("configIncludes() takes everything without `include` or `files`, only `files` with them", () => {
  assert.deepEqual(check("{}", ["a.ts", "deep/b.js"]), [true, true]);
  assert.deepEqual(check('{ "files": ["./main.ts"] }', ["main.ts", "other.ts"]), [true, false]);
  assert.deepEqual(
    check('{ "files": ["main.ts"], "include": ["lib"] }', ["main.ts", "lib/x.ts", "other.ts"]),
    [true, true, false],
  );
});

Deno.test("configIncludes() cannot tell when `include` comes from `extends`, or the text is not an object", () => {
  assert.equal(configIncludes('{ "extends": "./tsconfig.base.json" }'), undefined);
  assert.equal(configIncludes("[1, 2]"), undefined);
  assert.equal(configIncludes("not json at all"), undefined);
  assert.deepEqual(
    check('{ "extends": "./base.json", "include": ["src"] }', ["src/a.ts", "b.ts"]),
    [true, false],
  );
});

Deno.test("configIncludes() ignores patterns that leave the config's folder", () => {
  assert.deepEqual(check('{ "include": ["../shared", "src"] }', ["src/a.ts", "a.ts"]), [
    true,
    false,
  ]);
});
