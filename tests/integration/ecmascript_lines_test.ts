// typescript-language-server hands tsserver's positions on as LSP's, and tsserver's lines end at
// U+2028 and U+2029 too. In a file holding one, lspgate asked about the line above the one asked
// (a hover on `return other;` answered about `target`), put answers a line below where they are,
// and found no definition of a call: lspgate now counts those positions on tsserver's lines.
// TypeScript 7's own server counts lines as LSP does: its answers there are taken as they are.
// Both drop a file's BOM when they read it from disk; lspgate opens files in them without it too,
// and puts it back in their positions.
// Outline and diagnostics too. Against the real servers, under `deno task start`'s grant; places are exact.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startTask } from "../helpers/program.ts";
import { ensureTypeScript7 } from "../tools.ts";

const A_TS = [
  'export const sep = "a\u2028b";',
  "export const other = 1;",
  "",
  "export function target(): number {",
  "  return other;",
  "}",
  "",
  "export const use = target();",
  'export const mixed = "x\u2029y"; export const tail = other;',
  "export const bad: string = other;",
  "",
].join("\n");

const B_TS = 'import { target } from "./a";\nexport const again = target();\n';

interface Location {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** A project with a.ts and b.ts above; `setup` adds to it. */
async function project(setup?: (root: string) => Promise<void>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_ecma_lines_" }));
  await Deno.writeTextFile(
    join(root, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, target: "es2022", module: "esnext" } }),
  );
  await Deno.mkdir(join(root, "src"));
  await Deno.writeTextFile(join(root, "src/a.ts"), A_TS);
  await Deno.writeTextFile(join(root, "src/b.ts"), B_TS);
  await setup?.(root);
  return root;
}

/**
 * Definition, hover, references, outline and diagnostics in a.ts, each at its exact place; the
 * server's note and how it counts positions (`capabilities`).
 */
async function assertPlaces(
  root: string,
): Promise<{ note: string; positions: Record<string, unknown> }> {
  const lspgate = startTask(["--root", root]);
  try {
    const locations = (answer: Record<string, unknown>) => {
      assert.equal(answer.ok, true, JSON.stringify(answer));
      return (answer.details as { locations: Location[] }).locations.map((
        { file, line, column, endLine, endColumn },
      ) => ({ file, line, column, endLine, endColumn }));
    };
    const ask = (request: Record<string, unknown>) =>
      lspgate.ask({ id: 1, file: "src/a.ts", timeout: 60_000, ...request });

    // The call of target() on line 8, after the U+2028 of line 1.
    assert.deepEqual(locations(await ask({ action: "definition", line: 8, column: 20 })), [
      { file: "src/a.ts", line: 4, column: 17, endLine: 4, endColumn: 23 },
    ]);

    const hover = await ask({ action: "hover", line: 5, column: 10 });
    assert.equal(hover.ok, true, JSON.stringify(hover));
    const details = hover.details as { text: string; range: Omit<Location, "file"> };
    assert.match(details.text, /const other: 1/);
    assert.deepEqual(details.range, { line: 5, column: 10, endLine: 5, endColumn: 15 });

    // `other` after a U+2029 on the same line: a column tsserver counts from the separator.
    assert.deepEqual(locations(await ask({ action: "definition", line: 9, column: 49 })), [
      { file: "src/a.ts", line: 2, column: 14, endLine: 2, endColumn: 19 },
    ]);

    const references = locations(
      await ask({ action: "references", line: 4, column: 17, include_declaration: true }),
    );
    assert.deepEqual(references, [
      { file: "src/a.ts", line: 4, column: 17, endLine: 4, endColumn: 23 },
      { file: "src/a.ts", line: 8, column: 20, endLine: 8, endColumn: 26 },
      { file: "src/b.ts", line: 1, column: 10, endLine: 1, endColumn: 16 },
      { file: "src/b.ts", line: 2, column: 22, endLine: 2, endColumn: 28 },
    ]);
    const symbols = await ask({ action: "symbols" });
    assert.equal(symbols.ok, true, JSON.stringify(symbols));
    const target = (symbols.details as { symbols: Record<string, unknown>[] }).symbols
      .find((s) => s.name === "target");
    assert.deepEqual(
      target && { line: target.line, column: target.column, endLine: target.endLine },
      { line: 4, column: 17, endLine: 6 },
    );

    const diagnostics = await ask({ action: "diagnostics" });
    assert.equal(diagnostics.ok, true, JSON.stringify(diagnostics));
    const [file] = (diagnostics.details as { files: { diagnostics: Record<string, unknown>[] }[] })
      .files;
    assert.deepEqual(
      file.diagnostics.map(({ line, column, endLine, endColumn, code }) => ({
        line,
        column,
        endLine,
        endColumn,
        code,
      })),
      [{ line: 10, column: 14, endLine: 10, endColumn: 17, code: 2322 }],
    );

    const servers = await lspgate.ask({ id: 2, action: "servers" });
    const capabilities = await ask({ action: "capabilities" });
    const { encoding, ecmascriptLines } = capabilities.details as Record<string, unknown>;
    return {
      note: (servers.details as { servers: { note?: string }[] }).servers[0].note ?? "",
      positions: { encoding, ecmascriptLines },
    };
  } finally {
    await lspgate.kill();
  }
}

Deno.test("typescript-language-server in a file with U+2028 and U+2029: definition, hover, references, outline and diagnostics where they are", async () => {
  const root = await project();
  try {
    const { note, positions } = await assertPlaces(root);
    assert.doesNotMatch(note, /TypeScript 7/);
    // Said as it is: UTF-16, on ECMAScript's lines.
    assert.deepEqual(positions, { encoding: "utf-16", ecmascriptLines: true });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("TypeScript 7's own server in the same file: its places are LSP's, taken as they are", async () => {
  const modules = await ensureTypeScript7();
  const root = await project(async (root) => {
    await Deno.symlink(modules, join(root, "node_modules"));
    await Deno.writeTextFile(
      join(root, "package.json"),
      JSON.stringify({ devDependencies: { typescript: "7.0.2" } }),
    );
  });
  try {
    const { note, positions } = await assertPlaces(root);
    assert.match(note, /TypeScript 7\.0\.2 \(native\)/);
    assert.deepEqual(positions, { encoding: "utf-8", ecmascriptLines: undefined });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** c.ts with a BOM, d.ts using it; on TypeScript 7 when `typescript7` is its modules' folder. */
async function bomProject(typescript7?: string): Promise<string> {
  return await project(async (root) => {
    await Deno.writeTextFile(
      join(root, "src/c.ts"),
      "\uFEFFexport function greet(): number { return 1; }\nexport const x = greet();\n",
    );
    await Deno.writeTextFile(
      join(root, "src/d.ts"),
      'import { greet } from "./c";\nexport const y = greet();\n',
    );
    if (!typescript7) return;
    await Deno.symlink(typescript7, join(root, "node_modules"));
    await Deno.writeTextFile(
      join(root, "package.json"),
      JSON.stringify({ devDependencies: { typescript: "7.0.2" } }),
    );
  });
}

/** The first line's places of c.ts, asked in it and answered from d.ts; the server's note. */
async function assertBomPlaces(root: string): Promise<string> {
  const lspgate = startTask(["--root", root]);
  try {
    const places = async (request: Record<string, unknown>) => {
      const answer = await lspgate.ask({ id: 1, timeout: 60_000, ...request });
      assert.equal(answer.ok, true, JSON.stringify(answer));
      return (answer.details as { locations: Location[] }).locations.map((l) =>
        `${l.file}:${l.line}:${l.column}-${l.endColumn}`
      );
    };
    // c.ts not open: the server read it from disk.
    assert.deepEqual(
      await places({ action: "definition", file: "src/d.ts", line: 2, column: 18 }),
      ["src/c.ts:1:18-23"],
    );
    // Asked in c.ts (now open, sent without its BOM) and answered in both files.
    assert.deepEqual(
      await places({ action: "references", file: "src/c.ts", line: 1, column: 18 }),
      ["src/c.ts:1:18-23", "src/c.ts:2:18-23", "src/d.ts:1:10-15", "src/d.ts:2:18-23"],
    );
    const hover = await lspgate.ask({
      id: 2,
      action: "hover",
      file: "src/c.ts",
      line: 1,
      column: 20,
    });
    assert.equal(hover.ok, true, JSON.stringify(hover));
    assert.match((hover.details as { text: string }).text, /function greet\(\): number/);
    const servers = await lspgate.ask({ id: 3, action: "servers" });
    return (servers.details as { servers: { note?: string }[] }).servers[0].note ?? "";
  } finally {
    await lspgate.kill();
  }
}

// Both servers drop the BOM of a file they read from disk: a definition into one's first line came
// back a column short (typescript-language-server: 17 for greet at 18, the BOM being the line's
// first character) or three UTF-8 bytes short (TypeScript 7: 15).
Deno.test("typescript-language-server in a file with a BOM: its first line's places, asked in it and answered from another file", async () => {
  const root = await bomProject();
  try {
    assert.doesNotMatch(await assertBomPlaces(root), /TypeScript 7/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("TypeScript 7's own server in a file with a BOM: the same places", async () => {
  const root = await bomProject(await ensureTypeScript7());
  try {
    assert.match(await assertBomPlaces(root), /TypeScript 7\.0\.2 \(native\)/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
