// rust-analyzer on a Cargo project with a module, a trait and its impls (no dependencies; the
// standard library's source, rust-src, need not be installed).
import { ensureRustAnalyzer } from "../../tools.ts";
import { type Row, spot } from "../row.ts";

const MAIN = "src/main.rs";
const GREET = "src/greet.rs";
const CJK_LINE = 'let 名前 = "😀"; let message = greet(名前);';

const definition = spot(GREET, "pub fn greet(", "greet");
const call = spot(MAIN, CJK_LINE, "greet");
const speak = (nth: number) => spot(GREET, "fn speak(", "speak", nth);

const row: Row = {
  name: "rust-analyzer (Cargo)",
  fixture: "rust",
  server: "rust-analyzer",
  encoding: "utf-32",
  ensure: ensureRustAnalyzer,
  coldStart: { from: call, to: [definition] },
  unicode: { from: call, to: [definition] },
  references: {
    at: definition,
    expect: [
      definition,
      spot(GREET, "    greet(dog.name)", "greet"),
      spot(MAIN, "{greet,", "greet"),
      call,
    ],
  },
  hover: {
    at: call,
    matches: [/pub fn greet\(name: &str\) -> &str/, /Builds a greeting — the first thing/],
  },
  symbols: {
    file: GREET,
    expect: [
      { name: "greet", kind: "function", at: definition },
      { name: "Animal", kind: "interface", at: spot(GREET, "pub trait Animal", "Animal") },
      { name: "speak", kind: "method", container: "Animal", at: speak(1) },
      { name: "Dog", kind: "struct", at: spot(GREET, "pub struct Dog", "Dog") },
    ],
  },
  workspaceSymbols: {
    query: "greet_dog",
    expect: [{ name: "greet_dog", kind: "function", at: spot(GREET, "fn greet_dog", "greet_dog") }],
  },
  rename: { at: definition, newName: "welcome" },
  diagnostics: {
    file: GREET,
    replace: ['"meow"', "42"],
    error: spot(GREET, "42"),
  },
};

export default row;
