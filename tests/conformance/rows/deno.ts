// deno lsp on a deno.json project.
import { type Row, spot } from "../row.ts";

const MAIN = "src/main.ts";
const GREET = "src/greet.ts";
const SHAPES = "src/shapes.ts";
const REPORT = "src/report.ts";
const CJK_LINE = 'const 名前 = "😀", message = greet(名前);';

const definition = spot(GREET, "function greet(", "greet");
const call = spot(MAIN, CJK_LINE, "greet");
const references = [
  definition,
  spot(GREET, "=> greet(", "greet"),
  spot(MAIN, "import { greet }", "greet"),
  call,
  spot(REPORT, "import { greet }", "greet"),
  spot(REPORT, "${greet(", "greet"),
];
const area = (context: string, nth = 1) => spot(SHAPES, context, "area", nth);

const row: Row = {
  name: "deno lsp",
  fixture: "deno",
  server: "deno",
  encoding: "utf-16",
  coldStart: { from: call, to: [definition] },
  unicode: { from: call, to: [definition] },
  references: { at: definition, expect: references },
  hover: {
    at: definition,
    matches: [
      /function greet\(name: string\): string/,
      /Builds a greeting — the first thing every demo prints\./,
    ],
  },
  symbols: {
    file: SHAPES,
    expect: [
      { name: "Shape", kind: "interface", at: spot(SHAPES, "interface Shape", "Shape") },
      { name: "area", kind: "method", container: "Shape", at: area("  area(): number;") },
      { name: "Circle", kind: "class", at: spot(SHAPES, "class Circle ", "Circle") },
      { name: "area", kind: "method", container: "Circle", at: area("  area(): number {") },
      {
        name: "describe",
        kind: "method",
        container: "Circle",
        at: spot(SHAPES, "  describe(): string", "describe"),
      },
      { name: "area", kind: "method", container: "Square", at: area("  area(): number {", 2) },
    ],
  },
  workspaceSymbols: {
    query: "area",
    expect: [
      { name: "area", kind: "method", container: "Shape", at: area("  area(): number;") },
      { name: "area", kind: "method", container: "Circle", at: area("  area(): number {") },
      { name: "area", kind: "method", container: "Square", at: area("  area(): number {", 2) },
    ],
  },
  rename: { at: definition, newName: "welcome" },
  diagnostics: {
    file: REPORT,
    replace: ["/** A one-line", 'export const broken: number = "not a number";\n/** A one-line'],
    error: spot(REPORT, 'export const broken: number = "not a number";', "broken"),
    message: /not assignable to type 'number'/,
    code: 2322,
  },
};

export default row;
