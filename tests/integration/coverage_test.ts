// Coverage of workspace-wide answers on packages as they ship (issue 17), fetched by the test:
// zod's published src/ has no tsconfig.json (tsserver made a project of each open file, and
// references to util.joinValues answered 1 of 6); attrs' pyproject.toml narrows pyright to one
// file. Each answer equals what a grep finds, or says partial: true with the reason, and a rename
// apply on a partial answer is refused.
import assert from "node:assert/strict";
import { join } from "node:path";
import { answered, openSession } from "../helpers/session.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const ZOD = "zod@4.6.7";
const ATTRS = "attrs==26.1.0";

async function run(program: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(program, { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`${program} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** A fresh folder holding the unpacked archive's single top folder; removed on dispose. */
async function unpacked(fetch: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "lspgate-coverage-" });
  await fetch(dir);
  const archive = [...Deno.readDirSync(dir)].find((e) => /\.(tgz|tar\.gz)$/.test(e.name))!;
  await run("tar", ["xzf", archive.name], dir);
  const top = [...Deno.readDirSync(dir)].find((e) => e.isDirectory)!;
  return {
    root: await Deno.realPath(join(dir, top.name)),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

interface Spot {
  file: string;
  line: number;
  column: number;
}

/** Every whole-word occurrence of `word` in the files under `folder` ending in `ext`. */
async function grep(root: string, folder: string, ext: string, word: string): Promise<Spot[]> {
  const spots: Spot[] = [];
  const walk = async (rel: string) => {
    for await (const entry of Deno.readDir(join(root, rel))) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(ext)) {
        const lines = (await Deno.readTextFile(join(root, path))).split("\n");
        lines.forEach((text, i) => {
          for (const m of text.matchAll(new RegExp(`(?<![\\w$])${word}(?![\\w$])`, "g"))) {
            spots.push({ file: path, line: i + 1, column: [...text.slice(0, m.index)].length + 1 });
          }
        });
      }
    }
  };
  await walk(folder);
  return sorted(spots);
}

function sorted(spots: Spot[]): Spot[] {
  return spots.map(({ file, line, column }) => ({ file, line, column }))
    .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

Deno.test("zod without a tsconfig.json: references and rename of util.joinValues cover every file a grep finds", async () => {
  await using zod = await unpacked((dir) => run("npm", ["pack", ZOD, "--silent"], dir));
  const util = "src/v3/helpers/util.ts";
  await assert.rejects(Deno.stat(join(zod.root, "tsconfig.json")));
  // v4 has a joinValues of its own: the v3 one is used in src/v3 only.
  const want = await grep(zod.root, "src/v3", ".ts", "joinValues");
  assert.equal(want.length, 6);
  assert.equal(new Set(want.map((s) => s.file)).size, 3);
  const session = await openSession(zod.root, { role: "main", allowMutations: true });
  try {
    const where = {
      file: util,
      line: want.find((s) => s.file === util)!.line,
      symbol: "joinValues",
    };
    const refs = answered(await session.handle({ id: 1, action: "references", ...where }));
    assert.deepEqual(sorted(refs.details.locations as Spot[]), want, refs.text);
    assert.equal(refs.details.partial, false, refs.text);
    const rename = answered(
      await session.handle({ id: 2, action: "rename", ...where, new_name: "joinAll" }),
    );
    const changes = rename.details.changes as { file: string; edits: unknown[] }[];
    assert.deepEqual(
      changes.map((c) => [c.file, c.edits.length]).sort(),
      groupCount(want).sort(),
      rename.text,
    );
    assert.equal(rename.details.partial, false, rename.text);
    assert.match(rename.text, /6 edits in 3 files/);
    // Its callers are in the other two files the grep names.
    const callers = answered(await session.handle({ id: 3, action: "incoming_calls", ...where }));
    const calls = callers.details.calls as { file: string; callSites: unknown[] }[];
    assert.deepEqual(
      [...new Set(calls.map((c) => c.file))].sort(),
      [...new Set(want.map((s) => s.file))].filter((f) => f !== util).sort(),
      callers.text,
    );
    assert.equal(calls.reduce((n, c) => n + c.callSites.length, 0), 5, callers.text);
    assert.equal(callers.details.partial, false, callers.text);
  } finally {
    await session.close();
  }
});

function groupCount(spots: Spot[]): [string, number][] {
  const by = new Map<string, number>();
  for (const s of spots) by.set(s.file, (by.get(s.file) ?? 0) + 1);
  return [...by];
}

Deno.test("attrs' [tool.pyright] include: workspace symbols, references and rename say partial with the reason; an apply is refused", async () => {
  await using attrs = await unpacked((dir) =>
    run("pip", ["download", ATTRS, "--no-deps", "--no-binary", "attrs", "-d", dir, "-q"], dir)
  );
  const validators = "src/attr/validators.py";
  const pyproject = await Deno.readTextFile(join(attrs.root, "pyproject.toml"));
  assert.match(pyproject, /\[tool\.pyright\]\ninclude = \["typing-examples\/baseline\.py"\]/);
  const line = (await grep(attrs.root, "src/attr", ".py", "instance_of"))
    .find((s) => s.file === validators && s.column === 5)!.line;
  const before = await Deno.readTextFile(join(attrs.root, validators));
  const session = await openSession(attrs.root, { role: "main", allowMutations: true });
  try {
    // The folders with most files left out are named first: tests/ and src/.
    const reason =
      /pyproject\.toml's \[tool\.pyright\] include leaves (tests\/, src\/|src\/, tests\/), .* out/;
    // Asked about a name, the files left out that hold it are named.
    const holding =
      /pyproject\.toml's \[tool\.pyright\] include leaves .*tests\/test_\w+\.py.* out, where `instance_of` is a word/;
    const symbols = answered(
      await session.handle({ id: 1, action: "symbols", file: "*", query: "instance_of" }),
    );
    assert.equal(symbols.details.partial, true, symbols.text);
    assert.match(String(symbols.details.partialReason), reason);
    assert.match(symbols.text, reason);
    const where = { file: validators, line, symbol: "instance_of" };
    const refs = answered(await session.handle({ id: 2, action: "references", ...where }));
    // The tests use it too: a grep finds them, pyright was not let see them.
    const inTests = await grep(attrs.root, "tests", ".py", "instance_of");
    assert.ok(inTests.length > 0);
    const found = refs.details.locations as Spot[];
    assert.ok(!found.some((l) => l.file.startsWith("tests/")), refs.text);
    assert.equal(refs.details.partial, true, refs.text);
    assert.match(String(refs.details.partialReason), holding);
    assert.match(refs.text, /Note: this answer is partial: pyproject\.toml's/);
    const callers = answered(await session.handle({ id: 6, action: "incoming_calls", ...where }));
    assert.equal(callers.details.partial, true, callers.text);
    assert.match(String(callers.details.partialReason), holding);
    const preview = answered(
      await session.handle({ id: 3, action: "rename", ...where, new_name: "is_instance" }),
    );
    assert.equal(preview.details.partial, true, preview.text);
    const refused = await session.handle({
      id: 4,
      action: "rename",
      ...where,
      new_name: "is_instance",
      apply: true,
    });
    assert.equal(refused.ok, false);
    if (!refused.ok) {
      assert.equal(refused.error.code, "ACTION_NOT_ALLOWED");
      assert.match(refused.error.message, /allow_partial: true/);
      assert.match(refused.error.message, holding);
    }
    assert.equal(await Deno.readTextFile(join(attrs.root, validators)), before);
    const applied = answered(
      await session.handle({
        id: 5,
        action: "rename",
        ...where,
        new_name: "is_instance",
        apply: true,
        allow_partial: true,
      }),
    );
    assert.equal(applied.details.applied, true, applied.text);
    assert.match(await Deno.readTextFile(join(attrs.root, validators)), /def is_instance\(type\)/);
  } finally {
    await session.close();
  }
});

Deno.test("a tsconfig.json whose include leaves tests/ out: references say partial with the reason; a rename apply is refused", async () => {
  await using ws = await TempWorkspace.copy("typescript");
  await Deno.mkdir(ws.path("tests"));
  await ws.write(
    "tests/format.test.ts",
    'import { formatPrice } from "../src/format.ts";\n\nexport const shown = formatPrice(5);\n',
  );
  // Outside the include too, but importing nothing of the project: it cannot hold a use.
  await ws.write("jest.config.ts", "export default { verbose: true };\n");
  const session = await openSession(ws.root, { role: "main", allowMutations: true });
  try {
    const where = { file: "src/format.ts", query: "formatPrice" };
    const refs = answered(await session.handle({ id: 1, action: "references", ...where }));
    assert.equal(refs.details.partial, true, refs.text);
    assert.equal(refs.details.partialReason, "tsconfig.json's include leaves tests/ out");
    const found = refs.details.locations as Spot[];
    assert.ok(!found.some((l) => l.file.startsWith("tests/")), refs.text);
    const before = await Deno.readTextFile(ws.path("src/format.ts"));
    const refused = await session.handle({
      id: 2,
      action: "rename",
      ...where,
      new_name: "showPrice",
      apply: true,
    });
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.equal(refused.error.code, "ACTION_NOT_ALLOWED");
    assert.equal(await Deno.readTextFile(ws.path("src/format.ts")), before);
  } finally {
    await session.close();
  }
});

Deno.test("a config that takes tests/ out by files, by an include it extends, or a jsconfig.json leaving a script out: references say partial", async () => {
  // Each answered "3 references", complete, where a grep finds 5 (a helper's find).
  const util = 'export function greet(name: string): string {\n  return "hello " + name;\n}\n';
  const cases: { name: string; files: Record<string, string>; reason: string }[] = [
    {
      name: "files",
      files: {
        "tsconfig.json": JSON.stringify({
          compilerOptions: { strict: true },
          files: ["src/index.ts"],
        }),
        "src/index.ts":
          'import { greet } from "./util";\nexport const main = () => greet("src");\n',
        "tests/util.test.ts": 'import { greet } from "../src/util";\nconsole.log(greet("test"));\n',
      },
      reason: "tsconfig.json's include leaves tests/ out",
    },
    {
      name: "extends",
      files: {
        "tsconfig.base.json": JSON.stringify({ include: ["src"] }),
        "tsconfig.json": JSON.stringify({ extends: "./tsconfig.base.json" }),
        "src/index.ts":
          'import { greet } from "./util";\nexport const main = () => greet("src");\n',
        "tests/util.test.ts": 'import { greet } from "../src/util";\nconsole.log(greet("test"));\n',
      },
      reason: "tsconfig.json's include leaves tests/ out",
    },
    {
      name: "jsconfig",
      files: {
        "jsconfig.json": JSON.stringify({ include: ["src"] }),
        "src/util.js": "export function greet(name) {\n  return 'hello ' + name;\n}\n",
        "src/index.js":
          'import { greet } from "./util.js";\nexport const main = () => greet("src");\n',
        "scripts/run.js": 'import { greet } from "../src/util.js";\nconsole.log(greet("run"));\n',
      },
      reason: "jsconfig.json's include leaves scripts/ out",
    },
  ];
  for (const { name, files, reason } of cases) {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-coverage-" }));
    const all: Record<string, string> = { "package.json": '{ "name": "x" }\n', ...files };
    if (name !== "jsconfig") all["src/util.ts"] = util;
    for (const [rel, text] of Object.entries(all)) {
      await Deno.mkdir(join(root, rel, ".."), { recursive: true });
      await Deno.writeTextFile(join(root, rel), text);
    }
    const session = await openSession(root);
    try {
      const file = name === "jsconfig" ? "src/util.js" : "src/util.ts";
      const refs = answered(
        await session.handle({ id: 1, action: "references", file, query: "greet" }),
      );
      assert.equal(refs.details.partial, true, `${name}: ${refs.text}`);
      assert.equal(refs.details.partialReason, reason, name);
    } finally {
      await session.close();
      await Deno.remove(root, { recursive: true });
    }
  }
});

Deno.test("implementation without a tsconfig.json: every class implementing the interface, in files the open one does not import", async () => {
  const files: Record<string, string> = {
    "package.json": '{ "name": "shapes", "type": "module" }\n',
    "src/shape.ts": "export interface Shape {\n  area(): number;\n}\n",
    "src/circle.ts": 'import type { Shape } from "./shape.ts";\n\n' +
      "export class Circle implements Shape {\n  area(): number {\n    return 3;\n  }\n}\n",
    "src/square.ts": 'import type { Shape } from "./shape.ts";\n\n' +
      "export class Square implements Shape {\n  area(): number {\n    return 4;\n  }\n}\n",
  };
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-coverage-" }));
  await Deno.mkdir(join(root, "src"));
  for (const [rel, text] of Object.entries(files)) await Deno.writeTextFile(join(root, rel), text);
  const at = (file: string, name: string) => {
    const lines = files[file].split("\n");
    const line = lines.findIndex((l) => l.includes(`class ${name} `)) + 1;
    return { file, line, column: lines[line - 1].indexOf(name) + 1 };
  };
  const session = await openSession(root);
  try {
    // shape.ts imports nothing: tsserver's project of it alone holds no implementation.
    const impl = answered(
      await session.handle({
        id: 1,
        action: "implementation",
        file: "src/shape.ts",
        line: 1,
        symbol: "Shape",
      }),
    );
    assert.deepEqual(
      sorted(impl.details.locations as Spot[]),
      [at("src/circle.ts", "Circle"), at("src/square.ts", "Square")],
      impl.text,
    );
    assert.equal(impl.details.partial, false, impl.text);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});
