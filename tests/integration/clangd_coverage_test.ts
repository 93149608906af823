// Coverage of clangd's workspace-wide answers (issue 17): clangd indexes what its
// compile_commands.json lists, so a database that leaves b.c out left b.c's call out of references
// with `partial: false`. Now the answer says so, and an edit built on it needs allow_partial; a
// database listing every source answers in full; without one, a source created after clangd
// started is handed to it before the question.
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  answered,
  locationsOf,
  openSession,
  referencesAt,
  refusedAsPartial,
  sorted,
} from "../helpers/session.ts";
import { spanWithin } from "../helpers/locate.ts";

const LIB_H = "int helper(int x);\n";
const A_C = '#include "lib.h"\n\nint helper(int x) { return x + 1; }\n\n' +
  "int use_a(void) { return helper(1); }\n";
const B_C = '#include "lib.h"\n\nint use_b(void) { return helper(2); }\n';
/** Left out of the database too, but without `helper`: it cannot hold a use of it. */
const OTHER_C = "int use_other(void) { return 3; }\n";

/** A temp folder with `files`; removed on dispose. */
async function workspace(files: Record<string, string>) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_clangd_cov_" }));
  for (const [rel, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, rel), text);
  }
  return { root, [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }) };
}

/** A compile_commands.json listing `sources` (relative to `root`). */
function database(root: string, sources: string[]): string {
  return JSON.stringify(
    sources.map((file) => ({ directory: root, file, arguments: ["cc", "-c", file] })),
  );
}

/** Where `helper` is named in each file, as references should list it. */
function helperSpots(files: Record<string, string>) {
  const at = (file: string, context: string) => ({
    file,
    ...spanWithin(files[file], context, "helper"),
  });
  return {
    declaration: at("lib.h", "int helper("),
    definition: at("a.c", "int helper("),
    inA: at("a.c", "helper(1)"),
    inB: at("b.c", "helper(2)"),
  };
}

Deno.test("clangd, compile_commands.json leaving b.c out: references, callers, symbols and rename say partial with the reason; an apply needs allow_partial", async () => {
  const files = { "lib.h": LIB_H, "a.c": A_C, "b.c": B_C, "other.c": OTHER_C };
  await using ws = await workspace(files);
  await Deno.writeTextFile(join(ws.root, "compile_commands.json"), database(ws.root, ["a.c"]));
  const spots = helperSpots(files);
  const reason = "compile_commands.json leaves b.c out: clangd did not index it";
  const session = await openSession(ws.root, { role: "main", allowMutations: true });
  try {
    const where = { file: "a.c", line: spots.definition.line, symbol: "helper" };
    const refs = answered(await session.handle({ id: 1, action: "references", ...where }));
    // What clangd indexed, exactly; b.c's call is the one it was not let see.
    assert.deepEqual(
      sorted(locationsOf(refs.answer)),
      sorted([spots.definition, spots.inA, spots.declaration]),
      refs.text,
    );
    assert.equal(refs.details.partial, true, refs.text);
    // other.c is left out too, but holds no `helper`: only b.c is named.
    assert.equal(refs.details.partialReason, reason);
    assert.match(refs.text, /Note: this answer is partial: compile_commands\.json leaves b\.c out/);

    const callers = answered(await session.handle({ id: 2, action: "incoming_calls", ...where }));
    const calls = callers.details.calls as { name: string; file: string }[];
    assert.deepEqual(calls.map((c) => [c.name, c.file]), [["use_a", "a.c"]], callers.text);
    assert.equal(callers.details.partial, true, callers.text);
    assert.equal(callers.details.partialReason, reason);

    // A search by name is not about one symbol: every source left out is named.
    const symbols = answered(
      await session.handle({ id: 3, action: "symbols", file: "*", query: "use_" }),
    );
    const names = (symbols.details.symbols as { name: string }[]).map((s) => s.name);
    assert.deepEqual(names, ["use_a"], symbols.text);
    assert.equal(symbols.details.partial, true, symbols.text);
    assert.match(
      String(symbols.details.partialReason),
      /compile_commands\.json leaves b\.c, other\.c out: clangd did not index them$/,
    );

    const rename = { ...where, new_name: "helper2" };
    const preview = answered(await session.handle({ id: 4, action: "rename", ...rename }));
    assert.equal(preview.details.partial, true, preview.text);
    assert.equal(preview.details.partialReason, reason);
    for (const [id, extra] of [[5, {}], [6, { check: true }]] as const) {
      refusedAsPartial(
        await session.handle({ id, action: "rename", ...rename, ...extra, apply: true }),
        reason,
      );
    }
    for (const [file, text] of Object.entries(files)) {
      assert.equal(await Deno.readTextFile(join(ws.root, file)), text, file);
    }

    const applied = answered(
      await session.handle({
        id: 7,
        action: "rename",
        ...rename,
        apply: true,
        allow_partial: true,
      }),
    );
    assert.equal(applied.details.applied, true, applied.text);
    assert.equal(applied.details.partial, true, applied.text);
    assert.equal(await Deno.readTextFile(join(ws.root, "lib.h")), "int helper2(int x);\n");
    assert.equal(
      await Deno.readTextFile(join(ws.root, "a.c")),
      A_C.replaceAll("helper(", "helper2("),
    );
    // What the partial answer could not see stays as it was: the reason the apply was refused.
    assert.equal(await Deno.readTextFile(join(ws.root, "b.c")), B_C);
  } finally {
    await session.close();
  }
});

Deno.test("clangd, build/compile_commands.json listing every source: references find b.c's call and say partial: false", async () => {
  const files = {
    "lib.h": LIB_H,
    "a.c": A_C,
    "b.c": B_C,
    "CMakeLists.txt": "project(t C)\nadd_library(t a.c b.c)\n",
    // CMake's own probe in every build tree: build output, not a source of the project.
    "build/CMakeFiles/3.25.1/CompilerIdC/CMakeCCompilerId.c": "int helper;\n",
  };
  await using ws = await workspace(files);
  await Deno.writeTextFile(
    join(ws.root, "build/compile_commands.json"),
    database(ws.root, ["a.c", join(ws.root, "b.c")]),
  );
  const spots = helperSpots(files);
  const session = await openSession(ws.root);
  try {
    const where = { file: "a.c", line: spots.definition.line, symbol: "helper" };
    const refs = await referencesAt(session, 1, where, [
      spots.definition,
      spots.inA,
      spots.inB,
      spots.declaration,
    ]);
    assert.equal(refs.details.partial, false, refs.text);
  } finally {
    await session.close();
  }
});

Deno.test("clangd without compile_commands.json: a source created after it started is indexed before references answer", async () => {
  const files = { "lib.h": LIB_H, "a.c": A_C, "b.c": B_C, "Makefile": "all:\n" };
  const { "b.c": _, ...first } = files;
  await using ws = await workspace(first);
  const spots = helperSpots(files);
  const session = await openSession(ws.root);
  try {
    const where = { file: "a.c", line: spots.definition.line, symbol: "helper" };
    const before = await referencesAt(session, 1, where, [
      spots.definition,
      spots.inA,
      spots.declaration,
    ]);
    assert.equal(before.details.partial, false, before.text);
    // clangd was handed a command for each source at start; b.c had none, and is not opened.
    await Deno.writeTextFile(join(ws.root, "b.c"), B_C);
    const after = await referencesAt(session, 2, where, [
      spots.definition,
      spots.inA,
      spots.inB,
      spots.declaration,
    ]);
    assert.equal(after.details.partial, false, after.text);
  } finally {
    await session.close();
  }
});

Deno.test("clangd without compile_commands.json, a C project asked from its header first: every use, and the next answers too", async () => {
  // Without a command, clangd read lib.h as C++: references from it found the declaration only,
  // and the C symbols' answers that followed missed the header (a helper's find).
  const files = { "lib.h": LIB_H, "a.c": A_C, "b.c": B_C, "Makefile": "all:\n" };
  await using ws = await workspace(files);
  const spots = helperSpots(files);
  const all = [spots.declaration, spots.definition, spots.inA, spots.inB];
  const session = await openSession(ws.root);
  try {
    const fromHeader = { file: "lib.h", line: spots.declaration.line, symbol: "helper" };
    const first = await referencesAt(session, 1, fromHeader, all);
    assert.equal(first.details.partial, false, first.text);
    const fromSource = { file: "a.c", line: spots.definition.line, symbol: "helper" };
    await referencesAt(session, 2, fromSource, all);
  } finally {
    await session.close();
  }
});

Deno.test("clangd without compile_commands.json, a header-only C++ library: its headers stay C++", async () => {
  // With no source at all every .h was given C's command (a reviewer's find): `namespace` an error.
  const header = "#pragma once\nnamespace lib {\nclass Vec {\n public:\n  int size() const " +
    "{ return n; }\n\n private:\n  int n = 0;\n};\n}  // namespace lib\n";
  await using ws = await workspace({ "include/lib/vec.h": header, "Makefile": "all:\n" });
  const session = await openSession(ws.root);
  try {
    const answer = answered(
      await session.handle({ id: 1, action: "diagnostics", file: "include/lib/vec.h" }),
    );
    assert.equal(answer.details.total, 0, answer.text);
  } finally {
    await session.close();
  }
});
