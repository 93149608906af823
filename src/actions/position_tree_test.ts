import assert from "node:assert/strict";
import { TextLines } from "../lsp/text_lines.ts";
import { uniqueInTree } from "./position.ts";

const doc = (rel: string, text: string) => ({
  rel,
  uri: `file:///ws/${rel}`,
  lines: new TextLines(text),
});

Deno.test("uniqueInTree() finds a query that names one symbol, at its name, in code points", async () => {
  const ts = doc(
    "a.ts",
    'const 名前 = "😀"; export function greet(n: string) { return n; }\n' +
      "export class Shape { area() { return 0; } }\n" +
      "export class Circle extends Shape { area() { return 1; } }\n",
  );
  assert.deepEqual(await uniqueInTree(ts, "greet"), { line: 1, column: 33, name: "greet" });
  assert.deepEqual(await uniqueInTree(ts, "Circle.area"), { line: 3, column: 37, name: "area" });
  // Several symbols, or none: the server is asked instead.
  assert.equal(await uniqueInTree(ts, "area"), undefined);
  assert.equal(await uniqueInTree(ts, "Nope.area"), undefined);
  const py = doc("m.py", "class Zoo:\n    def feed(self):\n        pass\n");
  assert.deepEqual(await uniqueInTree(py, "Zoo.feed"), { line: 2, column: 9, name: "feed" });
  // No grammar for the file type.
  assert.equal(await uniqueInTree(doc("a.fake", "greet\n"), "greet"), undefined);
});
