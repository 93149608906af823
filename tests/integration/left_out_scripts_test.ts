// Files tsserver keeps out of a tsconfig.json's project though they sit in the workspace, each
// answered "complete" before (a prober's find): JavaScript beside a config without allowJs
// (src/legacy.js, scripts/run.mjs), and a dot-folder under `include` (src/.gen/, which tsc's
// wildcards skip). References say partial, naming them; a rename apply is refused.
import assert from "node:assert/strict";
import { answered, locationsOf, openSession } from "../helpers/session.ts";
import { writtenWorkspace } from "../helpers/workspace.ts";

const A = 'export function greet(s: string): string {\n  return "hi " + s;\n}\n\n' +
  "export function quiet(): number {\n  return 1;\n}\n";
const FILES: Record<string, string> = {
  "package.json": '{ "name": "app", "type": "module" }\n',
  "src/a.ts": A,
  "src/b.ts": 'import { greet, quiet } from "./a";\nexport const g = greet("ts") + quiet();\n',
  "src/legacy.js": 'import { greet } from "./a";\nexport const v = greet("legacy js");\n',
  "src/.gen/z.ts": 'import { greet } from "../a";\nexport const z = greet("dot folder");\n',
  "scripts/run.mjs": 'import { greet } from "../src/a.js";\nconsole.log(greet("run"));\n',
  // Not counted: JavaScript without the name, and a build's output.
  "src/plain.js": "export const plain = 1;\n",
  "dist/a.js": 'export function greet(s) {\n  return "hi " + s;\n}\n',
};

function config(compilerOptions: Record<string, unknown>): string {
  return JSON.stringify({
    compilerOptions: {
      strict: true,
      module: "esnext",
      moduleResolution: "bundler",
      ...compilerOptions,
    },
    include: ["src"],
  });
}

Deno.test("a tsconfig.json without allowJs: references name the JavaScript files and the dot-folder it leaves out; the apply is refused", async () => {
  const root = await writtenWorkspace("lspgate-scripts-", {
    ...FILES,
    "tsconfig.json": config({ noEmit: true }),
  });
  const session = await openSession(root, { role: "main", allowMutations: true });
  try {
    const refs = answered(
      await session.handle({ id: 1, action: "references", file: "src/a.ts", query: "greet" }),
    );
    assert.deepEqual([...new Set(locationsOf(refs.answer).map((l) => l.file))].sort(), [
      "src/a.ts",
      "src/b.ts",
    ]);
    assert.equal(refs.details.partial, true, refs.text);
    assert.equal(
      refs.details.partialReason,
      "tsconfig.json's include leaves src/.gen/ out; tsconfig.json sets no allowJs, so its " +
        "project leaves out JavaScript files that may use `greet` (scripts/run.mjs, src/legacy.js)",
    );
    const refused = await session.handle({
      id: 2,
      action: "rename",
      file: "src/a.ts",
      query: "greet",
      new_name: "hello",
      apply: true,
    });
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.equal(refused.error.code, "ACTION_NOT_ALLOWED");
    assert.equal(await Deno.readTextFile(`${root}/src/legacy.js`), FILES["src/legacy.js"]);
    // A name no JavaScript file holds: only the dot-folder, which imports the project, is named.
    const quiet = answered(
      await session.handle({ id: 3, action: "references", file: "src/a.ts", query: "quiet" }),
    );
    assert.equal(quiet.details.partialReason, "tsconfig.json's include leaves src/.gen/ out");
    assert.equal(quiet.details.total, 3, quiet.text);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a tsconfig.json with allowJs: its JavaScript is searched; a script outside the include is named", async () => {
  const root = await writtenWorkspace("lspgate-scripts-", {
    ...FILES,
    "tsconfig.json": config({ allowJs: true, noEmit: true }),
  });
  const session = await openSession(root);
  try {
    const refs = answered(
      await session.handle({ id: 1, action: "references", file: "src/a.ts", query: "greet" }),
    );
    const files = new Set(locationsOf(refs.answer).map((l) => l.file));
    assert.ok(files.has("src/legacy.js"), refs.text);
    assert.equal(refs.details.partial, true, refs.text);
    assert.equal(
      refs.details.partialReason,
      "tsconfig.json's include leaves scripts/, src/.gen/ out",
    );
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("allowJs set by a package's base config (Astro's), and 250 cached scripts without the name: complete", async () => {
  const chunks: Record<string, string> = {};
  for (let i = 0; i < 250; i++) {
    chunks[`.angular/cache/deps/chunk-${i}.js`] = `export const c${i} = ${i};\n`;
  }
  const root = await writtenWorkspace("lspgate-scripts-", {
    "package.json": '{ "name": "app", "type": "module" }\n',
    "tsconfig.json": '{ "extends": "astro/tsconfigs/strict", "include": ["**/*"] }\n',
    "node_modules/astro/package.json": '{ "name": "astro", "version": "4.0.0" }\n',
    "node_modules/astro/tsconfigs/base.json": JSON.stringify({
      compilerOptions: { module: "esnext", moduleResolution: "bundler", allowJs: true },
    }),
    "node_modules/astro/tsconfigs/strict.json":
      '{ "extends": "./base.json", "compilerOptions": { "strict": true } }\n',
    "src/utils.ts": 'export function greet(n: string) {\n  return "hi " + n;\n}\n',
    "src/scripts/menu.js": 'import { greet } from "../utils";\nexport const m = greet("x");\n',
    ...chunks,
  });
  const session = await openSession(root);
  try {
    const refs = answered(
      await session.handle({ id: 1, action: "references", file: "src/utils.ts", query: "greet" }),
    );
    // The reviewer's finds: "sets no allowJs … (src/scripts/menu.js)" beside menu.js's own uses,
    // and, past 200 files read, every chunk counted as holding the name.
    assert.deepEqual([...new Set(locationsOf(refs.answer).map((l) => l.file))].sort(), [
      "src/scripts/menu.js",
      "src/utils.ts",
    ]);
    assert.equal(refs.details.partial, false, refs.text);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});
