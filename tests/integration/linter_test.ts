// A language server plus a linter server for one file: diagnostics from both, merged, each with
// its source; navigation from the language server alone. Biome negotiates its own position
// encoding, so the CJK line checks that conversion too.
import assert from "node:assert/strict";
import { expectOk, locationsOf, openSession } from "../helpers/session.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

interface Diagnostic {
  line: number;
  column: number;
  endColumn: number;
  severity: string;
  source?: string;
  code?: string | number;
}

Deno.test("deno lsp and biome together: merged diagnostics with sources, navigation from deno", async () => {
  const ws = await TempWorkspace.copy("deno");
  await ws.write("biome.json", JSON.stringify({ linter: { enabled: true } }));
  await ws.write(
    "src/lint_me.ts",
    'import { greet } from "./greet.ts";\n' +
      'export const 名前: number = "x";\n' +
      "export const same = greet(String(名前)) == `x`;\n",
  );
  const session = await openSession(ws.root);
  try {
    const response = expectOk(
      await session.handle({ id: 1, action: "diagnostics", file: "src/lint_me.ts" }),
    );
    const [file] = response.details.files as { status: string; diagnostics: Diagnostic[] }[];
    assert.equal(file.status, "ok");
    const typeError = await ws.locate("src/lint_me.ts", "名前: number");
    const doubleEquals = await ws.locate("src/lint_me.ts", "==");
    const found = file.diagnostics.map((d) => ({
      line: d.line,
      column: d.column,
      source: d.source,
      code: d.code,
    }));
    assert.deepEqual(
      found.filter((d) => d.source === "deno-ts"),
      [{ ...typeError, source: "deno-ts", code: 2322 }],
    );
    assert.deepEqual(
      found.filter((d) => d.source === "biome"),
      [{ ...doubleEquals, source: "biome", code: "lint/suspicious/noDoubleEquals" }],
    );
    assert.equal(
      file.diagnostics.find((d) => d.source === "biome")?.endColumn,
      doubleEquals.column + 2,
    );

    const definition = expectOk(
      await session.handle({
        id: 2,
        action: "definition",
        file: "src/lint_me.ts",
        line: 3,
        symbol: "greet",
      }),
    );
    assert.deepEqual(
      locationsOf(definition).map(({ file, line }) => ({ file, line })),
      [{ file: "src/greet.ts", line: (await ws.locate("src/greet.ts", "function greet")).line }],
    );
    const servers = expectOk(await session.handle({ id: 3, action: "servers" }));
    assert.deepEqual(
      (servers.details.servers as { server: string }[]).map((s) => s.server).sort(),
      ["biome", "deno"],
    );
  } finally {
    await session.close();
    await ws.remove();
  }
});

Deno.test("diagnostics asked at once for files being opened: every answer has biome's push, none waits it out", async () => {
  // Several requests for one file arrive together: the first sends the didOpen, the others find
  // the document open but its send not yet recorded. Those once waited for a push "after" a send
  // of time Infinity, and answered after the whole timeout: "not heard from biome".
  const ws = await TempWorkspace.copy("deno");
  await ws.write("biome.json", JSON.stringify({ linter: { enabled: true } }));
  const files = Array.from({ length: 20 }, (_, i) => `src/eq${i}.ts`);
  for (const [i, file] of files.entries()) {
    await ws.write(file, `export const same${i} = ${i} == 1;\n`);
  }
  const session = await openSession(ws.root);
  try {
    let id = 1;
    const asked = files.flatMap((file) =>
      Array.from({ length: 5 }, () => session.handle({ id: id++, action: "diagnostics", file }))
    );
    for (const response of await Promise.all(asked)) {
      const answer = expectOk(response);
      const [file] = answer.details.files as { file: string; diagnostics: Diagnostic[] }[];
      assert.doesNotMatch(String(answer.content[0].text), /not heard from biome/);
      assert.ok(
        file.diagnostics.some((d) =>
          d.source === "biome" && d.code === "lint/suspicious/noDoubleEquals"
        ),
        `${file.file}: biome's noDoubleEquals: ${JSON.stringify(file.diagnostics)}`,
      );
    }
  } finally {
    await session.close();
    await ws.remove();
  }
});
