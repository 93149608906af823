// Declaration files and the code they type, each a symbol of its own to the server: asked at a
// `.d.ts` or `.pyi`, the code beside it is not searched; asked at the code, the stubs past those
// lspgate reads are not either. Each answered "complete" before (a prober's finds: a rename at
// lib/merge.d.ts left lib/merge.js's `merge` as it was, and the package no longer imported).
import assert from "node:assert/strict";
import { answered, openSession } from "../helpers/session.ts";
import { writtenWorkspace } from "../helpers/workspace.ts";

Deno.test("asked at a declaration file (.d.ts, .pyi), the code beside it holding the name makes references partial; the apply is refused", async () => {
  const merge = "export const merge = (a, b) => ({ ...a, ...b });\n";
  const root = await writtenWorkspace("lspgate-declarations-", {
    "package.json": JSON.stringify({ name: "mini", type: "module", main: "lib/index.js" }),
    "lib/merge.js": merge,
    "lib/merge.d.ts": "export declare const merge: (a: object, b: object) => object;\n" +
      "export declare const extra: number;\n",
    "lib/index.js": 'import { merge } from "./merge.js";\n' +
      "export const both = merge({ a: 1 }, { b: 2 });\n",
    "pyproject.toml": '[project]\nname = "pkg"\nversion = "1.0"\n',
    "pkg/__init__.py": "",
    "pkg/util.py": "def greet(name: str) -> str:\n    return name\n",
    "pkg/util.pyi": "def greet(name: str) -> str: ...\n",
    "main.py": 'from pkg.util import greet\n\nprint(greet("x"))\n',
  });
  const session = await openSession(root, { role: "main", allowMutations: true });
  try {
    const said = (name: string, code: string) =>
      `\`${name}\` is also a word in ${code}, the code the declaration file asked at types: its ` +
      "definition and uses there are not found from a declaration; ask at it too";
    const at = { file: "lib/merge.d.ts", line: 1, symbol: "merge" };
    const refs = answered(await session.handle({ id: 1, action: "references", ...at }));
    assert.equal(refs.details.partial, true, refs.text);
    assert.equal(refs.details.partialReason, said("merge", "lib/merge.js"));
    const refused = await session.handle({
      id: 2,
      action: "rename",
      ...at,
      new_name: "combine",
      apply: true,
    });
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.equal(refused.error.code, "ACTION_NOT_ALLOWED");
    assert.equal(await Deno.readTextFile(`${root}/lib/merge.js`), merge);
    // A name the code beside it does not hold: complete.
    const extra = answered(
      await session.handle({
        id: 3,
        action: "references",
        file: at.file,
        line: 2,
        symbol: "extra",
      }),
    );
    assert.equal(extra.details.partial, false, extra.text);
    const stub = answered(
      await session.handle({
        id: 4,
        action: "references",
        file: "pkg/util.pyi",
        line: 1,
        symbol: "greet",
      }),
    );
    assert.equal(stub.details.partialReason, said("greet", "pkg/util.py"), stub.text);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("past the 200 stubs lspgate reads, references say partial; the stub beside the file asked about is read first", async () => {
  const files: Record<string, string> = {
    "pyproject.toml": '[project]\nname = "pkg"\nversion = "1.0"\n',
    "pkg/__init__.py": "",
    "pkg/util.py": "def greet(name: str) -> str:\n    return name\n\n\n" +
      "def other() -> int:\n    return 1\n",
    "pkg/util.pyi": "def greet(name: str) -> str: ...\n",
    "main.py": 'from pkg.util import greet, other\n\nprint(greet("x"), other())\n',
  };
  // 206 stubs of nothing asked about, sorted before pkg/.
  for (let i = 0; i < 206; i++) files[`aaa/s${String(i).padStart(3, "0")}.pyi`] = `x${i}: int\n`;
  const root = await writtenWorkspace("lspgate-declarations-", files);
  const session = await openSession(root);
  try {
    const greet = answered(
      await session.handle({
        id: 1,
        action: "references",
        file: "pkg/util.py",
        line: 1,
        symbol: "greet",
      }),
    );
    assert.equal(
      greet.details.partialReason,
      "`greet` is also declared in pkg/util.pyi (declaration files): uses that resolve to a " +
        "declaration there are not found from here; ask at it too",
      greet.text,
    );
    const other = answered(
      await session.handle({
        id: 2,
        action: "references",
        file: "pkg/util.py",
        line: 5,
        symbol: "other",
      }),
    );
    assert.equal(
      other.details.partialReason,
      "the project has 7 more declaration files lspgate did not read for `other`: uses that " +
        "resolve to a declaration there are not found from here",
      other.text,
    );
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
  }
});
