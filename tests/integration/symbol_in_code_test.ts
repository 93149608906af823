// `line` + `symbol` names the name in code, not its first appearance on the line: a helper found
// `print("compute", compute(1))` asked about the string (pyright: "No references", complete) and
// TypeScript's `console.log("runAll", runAll(1))` answered "1 reference": the string itself. Real
// pyright and typescript-language-server.
import assert from "node:assert/strict";
import { hostileRepo, runLspgate } from "../security/hostile.ts";

Deno.test("line + symbol asks about the name in code when a string or a comment on the line holds it first", async () => {
  const repo = await hostileRepo({
    "pyproject.toml": '[project]\nname = "w"\nversion = "0"\n',
    "calc.py": "def compute(n: int) -> int:\n    return n\n\n\n" +
      'print("compute", compute(1))\nprint(f"compute={compute(2)}")  # compute\n',
    "package.json": JSON.stringify({ name: "w", version: "1.0.0" }),
    "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true }, include: ["src"] }),
    "src/run.ts": "export function runAll(n: number): number {\n  return n;\n}\n\n" +
      'console.log("runAll", runAll(1)); // runAll\n',
  });
  try {
    const run = await runLspgate(repo.root, [
      { id: 1, action: "references", file: "calc.py", line: 5, symbol: "compute" },
      { id: 2, action: "references", file: "calc.py", line: 6, symbol: "compute" },
      { id: 3, action: "references", file: "src/run.ts", line: 5, symbol: "runAll" },
      { id: 4, action: "definition", file: "calc.py", line: 5, symbol: "compute" },
    ]);
    const lines = run.lines as { details: { total?: number; locations?: { line: number }[] } }[];
    assert.equal(lines[0].details.total, 3, JSON.stringify(lines[0]));
    assert.equal(lines[1].details.total, 3, JSON.stringify(lines[1]));
    assert.deepEqual(lines[2].details.locations?.map((l) => l.line), [1, 5]);
    assert.deepEqual(lines[3].details.locations?.map((l) => l.line), [1]);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});
