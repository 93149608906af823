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

// The prober's finds 10 and 11: `symbol` landed in a `/* … */` comment, in a string key inside an
// f-string's or a template's braces, or on JavaScript's private `#size` for `size`, and answered
// "No references found" (or another symbol's) as complete.
Deno.test("line + symbol skips block comments, strings inside interpolations and private names", async () => {
  const repo = await hostileRepo({
    "pyproject.toml": '[project]\nname = "w"\nversion = "0"\n',
    "m.py": "def greet(s: str) -> str:\n    return s\n\n\n" +
      `names = {"greet": "hi"}\nmsg = f"{names['greet']}" + greet("x")\n`,
    "package.json": JSON.stringify({ name: "w", version: "1.0.0" }),
    "tsconfig.json": JSON.stringify({
      compilerOptions: { strict: true, target: "es2022" },
      include: ["src"],
    }),
    "src/a.ts": "export function greet(s: string) { return s; }\n" +
      'export const r = greet("a") + /* greet */ greet("b");\n' +
      'const obj = { greet: "hi" };\nexport const t = `${obj["greet"]}` + greet("c");\n',
    "src/c.ts": "export class Box {\n  #size = 0;\n" +
      "  resize(size: number) { this.#size = size; return this.#size; }\n}\n",
  });
  try {
    const run = await runLspgate(repo.root, [
      { id: 1, action: "references", file: "src/a.ts", line: 2, symbol: "greet#2" },
      { id: 2, action: "references", file: "m.py", line: 6, symbol: "greet" },
      { id: 3, action: "references", file: "src/a.ts", line: 4, symbol: "greet" },
      { id: 4, action: "references", file: "src/c.ts", line: 3, symbol: "size#2" },
    ]);
    type Answer = { details: { locations?: { line: number; column: number }[] } };
    const at = (i: number) =>
      (run.lines[i] as Answer).details.locations?.map((l) => `${l.line}:${l.column}`);
    assert.deepEqual(at(0), ["1:17", "2:18", "2:43", "4:38"], JSON.stringify(run.lines[0]));
    assert.deepEqual(at(1), ["1:5", "6:29"], JSON.stringify(run.lines[1]));
    assert.deepEqual(at(2), ["1:17", "2:18", "2:43", "4:38"], JSON.stringify(run.lines[2]));
    assert.deepEqual(at(3), ["3:10", "3:39"], JSON.stringify(run.lines[3]));
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

// The prober's find 12: a dotted `symbol` answered for its first part, `self`, as if asked about it.
Deno.test("line + a dotted symbol asks about its last part", async () => {
  const repo = await hostileRepo({
    "pyproject.toml": '[project]\nname = "w"\nversion = "0"\n',
    "cli.py": "class Command:\n    def get_usage(self) -> str:\n        return ''\n\n\n" +
      "class Tool:\n    def __init__(self) -> None:\n        self.command = Command()\n\n" +
      "    def show(self) -> str:\n        return self.command.get_usage()\n",
  });
  try {
    const run = await runLspgate(repo.root, [
      { id: 1, action: "references", file: "cli.py", line: 11, symbol: "self.command.get_usage" },
      { id: 2, action: "references", file: "cli.py", line: 11, symbol: "self.get_usage" },
    ]);
    type Answer = { details?: { locations?: { line: number; column: number }[] }; error?: unknown };
    const answers = run.lines as Answer[];
    assert.deepEqual(
      answers[0].details?.locations?.map((l) => `${l.line}:${l.column}`),
      ["2:9", "11:29"],
      JSON.stringify(answers[0]),
    );
    assert.deepEqual(answers[1].error, {
      code: "SYMBOL_NOT_FOUND",
      message: "`self.get_usage` is not on line 11 of cli.py.",
      data: { symbol: "self.get_usage", line: 11, nearbyLines: [] },
    });
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});
