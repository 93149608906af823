// clangd on a C++ project with a compile_commands.json (written at setup with absolute paths, as
// CMake writes it), classes in a namespace and a header in include/.
import { ensureClangd } from "../../tools.ts";
import { type Row, spot } from "../row.ts";

const HEADER = "include/shapes.hpp";
const SHAPES = "src/shapes.cpp";
const MAIN = "src/main.cpp";
const CJK_LINE =
  'const char *label = "名前 😀"; double sum = geo::total_area(geo::Circle(1.0), geo::Circle(2.0));';

const definition = spot(SHAPES, "double total_area(", "total_area");
const call = spot(MAIN, CJK_LINE, "total_area");

const row: Row = {
  name: "clangd (C++, compile_commands.json)",
  fixture: "cpp",
  server: "clangd",
  encoding: "utf-32",
  ensure: ensureClangd,
  async setup(ws) {
    const commands = ["src/shapes.cpp", "src/main.cpp"].map((file) => ({
      directory: ws.root,
      file: ws.path(file),
      arguments: ["clang++", "-std=c++17", "-Iinclude", "-c", file],
    }));
    await ws.write("compile_commands.json", JSON.stringify(commands, null, 2));
  },
  coldStart: { from: call, to: [definition] },
  unicode: { from: call, to: [definition] },
  references: {
    at: definition,
    expect: [spot(HEADER, "double total_area(", "total_area"), definition, call],
  },
  hover: {
    at: call,
    matches: [/function `?total_area`?/, /→ `?double`?/, /The sum of two shapes' areas — what/],
  },
  symbols: {
    file: HEADER,
    expect: [
      { name: "geo", kind: "namespace", at: spot(HEADER, "namespace geo", "geo") },
      { name: "Shape", kind: "class", container: "geo", at: spot(HEADER, "class Shape", "Shape") },
      {
        name: "area",
        kind: "method",
        container: "geo.Shape",
        at: spot(HEADER, "virtual double area()", "area"),
      },
      {
        name: "Circle",
        kind: "class",
        container: "geo",
        at: spot(HEADER, "class Circle", "Circle"),
      },
      {
        name: "scaled",
        kind: "method",
        container: "geo.Circle",
        at: spot(HEADER, "double scaled(", "scaled"),
      },
    ],
  },
  workspaceSymbols: {
    query: "scaled",
    expect: [
      {
        name: "scaled",
        kind: "method",
        container: "geo::Circle",
        at: spot(SHAPES, "Circle::scaled(", "scaled"),
      },
    ],
  },
  rename: { at: definition, newName: "sum_of_areas" },
  diagnostics: {
    file: SHAPES,
    replace: ["return area() * factor;", "return area() * missing_factor;"],
    error: spot(SHAPES, "missing_factor"),
    message: /undeclared identifier 'missing_factor'/,
  },
};

export default row;
