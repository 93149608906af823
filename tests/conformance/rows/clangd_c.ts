// clangd on a C project with compile_flags.txt (no compile_commands.json): lspgate hands clangd a
// compile command per source file so its background index covers the project.
import { ensureClangd } from "../../tools.ts";
import { type Row, spot } from "../row.ts";

const HEADER = "src/counts.h";
const COUNTS = "src/counts.c";
const MAIN = "src/main.c";
const CJK_LINE = 'const char *label = "名前 😀"; int total = add_counts(1, 2);';

const definition = spot(COUNTS, "int add_counts(", "add_counts");
const call = spot(MAIN, CJK_LINE, "add_counts");

const row: Row = {
  name: "clangd (C, compile_flags.txt)",
  fixture: "c",
  server: "clangd",
  encoding: "utf-32",
  ensure: ensureClangd,
  // Without the index, clangd answers with the header's declaration.
  coldStart: { from: call, to: [definition] },
  unicode: { from: call, to: [definition] },
  references: {
    at: definition,
    expect: [
      spot(HEADER, "int add_counts(", "add_counts"),
      definition,
      spot(COUNTS, "return add_counts(", "add_counts"),
      call,
    ],
  },
  hover: {
    at: call,
    matches: [/function `?add_counts`?/, /→ `?int`?/, /Adds two counts — the simplest sum/],
  },
  symbols: {
    file: COUNTS,
    expect: [
      { name: "add_counts", kind: "function", at: definition },
      { name: "point_sum", kind: "function", at: spot(COUNTS, "int point_sum(", "point_sum") },
    ],
  },
  workspaceSymbols: {
    query: "point_sum",
    expect: [{
      name: "point_sum",
      kind: "function",
      at: spot(COUNTS, "int point_sum(", "point_sum"),
    }],
  },
  rename: { at: definition, newName: "sum_counts" },
  diagnostics: {
    file: COUNTS,
    replace: ["return left + right;", "return left + missing_count;"],
    error: spot(COUNTS, "missing_count"),
    message: /undeclared identifier 'missing_count'/,
  },
};

export default row;
