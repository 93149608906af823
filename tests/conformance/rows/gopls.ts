// gopls on a Go module with a package, an interface and methods.
import { ensureGopls } from "../../tools.ts";
import { type Row, spot } from "../row.ts";

const GREET = "greet/greet.go";
const MAIN = "main.go";
const CJK_LINE = '名前 := "😀"; message := greet.Greet(名前)';

const definition = spot(GREET, "func Greet(", "Greet");
const call = spot(MAIN, CJK_LINE, "Greet");

const row: Row = {
  name: "gopls (Go module)",
  fixture: "go",
  server: "gopls",
  encoding: "utf-16",
  ensure: ensureGopls,
  coldStart: { from: call, to: [definition] },
  unicode: { from: call, to: [definition] },
  references: {
    at: definition,
    expect: [definition, spot(GREET, "return Greet(", "Greet"), call],
  },
  hover: {
    at: call,
    matches: [
      /func (greet\.)?Greet\(name string\) string/,
      /Greet builds a greeting — the first thing/,
    ],
  },
  symbols: {
    file: GREET,
    expect: [
      { name: "Greet", kind: "function", at: definition },
      { name: "Animal", kind: "interface", at: spot(GREET, "type Animal", "Animal") },
      { name: "Dog", kind: "struct", at: spot(GREET, "type Dog", "Dog") },
    ],
  },
  workspaceSymbols: {
    query: "Speak",
    expect: [
      // gopls names a method with its type, and gives the package as the container.
      {
        name: "Dog.Speak",
        kind: "method",
        container: "example.com/zoo/greet",
        at: spot(GREET, "func (d Dog) Speak(", "Speak"),
      },
      {
        name: "Cat.Speak",
        kind: "method",
        container: "example.com/zoo/greet",
        at: spot(GREET, "func (Cat) Speak(", "Speak"),
      },
    ],
  },
  rename: {
    at: definition,
    newName: "Welcome",
    // gopls also renames the doc comment that starts with the name, as Go's convention has it.
    expect: [
      spot(GREET, "// Greet builds", "Greet"),
      definition,
      spot(GREET, "return Greet(", "Greet"),
      call,
    ],
  },
  diagnostics: {
    file: GREET,
    replace: ['return "meow"', "return 42"],
    error: spot(GREET, "42"),
  },
};

export default row;
