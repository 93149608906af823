// The workspace-wide diagnostics sweep says which files it did not check and why, never silence.
import assert from "node:assert/strict";
import { join } from "node:path";
import { expectOk, openSession } from "../helpers/session.ts";

Deno.test('diagnostics "*": files whose server is not installed are named as not checked, with why', async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_sweep_" }));
  try {
    await Deno.writeTextFile(join(root, "deno.json"), "{}\n");
    await Deno.writeTextFile(join(root, "a.ts"), "export const a: number = 1;\n");
    // jdtls (Java) is a data-only adapter nobody installed here.
    await Deno.mkdir(join(root, "java"));
    await Deno.writeTextFile(join(root, "java", "A.java"), "class A {}\n");
    await Deno.writeTextFile(join(root, "java", "B.java"), "class B {}\n");
    const session = await openSession(root);
    try {
      const answer = expectOk(await session.handle({ id: 1, action: "diagnostics", file: "*" }));
      const files = (answer.details.files as { file: string; status: string }[]).map((f) => f.file);
      assert.deepEqual(files, ["a.ts"]);
      assert.deepEqual(answer.details.notChecked, [
        { extension: ".java", files: 2, reason: "jdtls is not installed" },
      ]);
      assert.match(answer.content[0].text, /Not checked: 2 \.java \(jdtls is not installed\)\./);
    } finally {
      await session.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("diagnostics files[]: files that could not be checked (missing) are not counted as checked", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_sweep_" }));
  try {
    await Deno.writeTextFile(join(root, "deno.json"), "{}\n");
    await Deno.writeTextFile(join(root, "a.ts"), "export const a: number = 1;\n");
    const session = await openSession(root);
    try {
      const answer = expectOk(
        await session.handle({ id: 1, action: "diagnostics", files: ["a.ts", "nope.ts", "b.ts"] }),
      );
      const files = answer.details.files as { file: string; status: string }[];
      assert.deepEqual(files.map((f) => [f.file, f.status]), [
        ["a.ts", "ok"],
        ["nope.ts", "error"],
        ["b.ts", "error"],
      ]);
      // It said "0 diagnostics in 3 files checked (1 clean)." (a helper's find).
      assert.match(
        answer.content[0].text,
        /^0 diagnostics in 1 file checked \(1 clean\), 2 files not checked:\nnope\.ts: error — /,
      );
    } finally {
      await session.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
