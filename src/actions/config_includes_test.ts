import assert from "node:assert/strict";
import { configIncludes } from "./config_includes.ts";

async function check(config: string, files: string[]): Promise<boolean[]> {
  const includes = await configIncludes(config);
  assert.ok(includes, `an answer for ${config}`);
  return files.map(includes);
}

Deno.test("configIncludes() reads a folder in `include` as everything under it", async () => {
  assert.deepEqual(
    await check('{ "include": ["src"] }', [
      "src/a.ts",
      "src/deep/b.ts",
      "scripts/c.ts",
      "vite.config.ts",
    ]),
    [true, true, false, false],
  );
});

Deno.test("configIncludes() matches wildcards and leaves out `exclude`, folders included", async () => {
  const config = `{
    // JSONC, as tsc reads it
    "include": ["./src/**/*.ts", "types/*.d.ts",],
    "exclude": ["src/legacy", "**/*.spec.ts"],
  }`;
  assert.deepEqual(
    await check(config, [
      "src/a.ts",
      "src/legacy/old.ts",
      "src/a.spec.ts",
      "types/global.d.ts",
      "types/x/deep.d.ts",
    ]),
    [true, false, false, true, false],
  );
});

Deno.test("configIncludes() takes everything without `include` or `files`, only `files` with them", async () => {
  assert.deepEqual(await check("{}", ["a.ts", "deep/b.js"]), [true, true]);
  assert.deepEqual(await check('{ "files": ["./main.ts"] }', ["main.ts", "other.ts"]), [
    true,
    false,
  ]);
  assert.deepEqual(
    await check('{ "files": ["main.ts"], "include": ["lib"] }', [
      "main.ts",
      "lib/x.ts",
      "other.ts",
    ]),
    [true, true, false],
  );
});

Deno.test("configIncludes() cannot tell when `include` comes from `extends`, or the text is not an object", async () => {
  assert.equal(await configIncludes('{ "extends": "./tsconfig.base.json" }'), undefined);
  assert.equal(await configIncludes("[1, 2]"), undefined);
  assert.equal(await configIncludes("not json at all"), undefined);
  assert.deepEqual(
    await check('{ "extends": "./base.json", "include": ["src"] }', ["src/a.ts", "b.ts"]),
    [true, false],
  );
});

Deno.test("configIncludes() ignores patterns that leave the config's folder", async () => {
  assert.deepEqual(await check('{ "include": ["../shared", "src"] }', ["src/a.ts", "a.ts"]), [
    true,
    false,
  ]);
});

Deno.test("configIncludes() leaves out files and folders whose names begin with a dot unless a pattern spells the dot", async () => {
  // tsc --listFilesOnly: "include": ["src"] takes in neither src/.gen/z.ts nor src/.hidden.ts.
  assert.deepEqual(
    await check('{ "include": ["src"] }', ["src/a.ts", "src/.gen/z.ts", "src/.hidden.ts"]),
    [true, false, false],
  );
  assert.deepEqual(await check("{}", ["a.ts", ".storybook/main.ts"]), [true, false]);
  assert.deepEqual(
    await check('{ "include": ["src", "src/.gen/**/*", ".config/*.ts"] }', [
      "src/.gen/z.ts",
      ".config/vite.ts",
      "src/.other/y.ts",
    ]),
    [true, true, false],
  );
  // `files` names a file outright.
  assert.deepEqual(await check('{ "files": [".gen/z.ts"] }', [".gen/z.ts"]), [true]);
});
