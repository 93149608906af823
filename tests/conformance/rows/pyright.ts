// pyright on a pyproject.toml project with a package.
import { type Row, spot } from "../row.ts";

const MAIN = "main.py";
const GREETING = "zoo/greeting.py";
const ANIMALS = "zoo/animals.py";
const REPORT = "zoo/report.py";
const INIT = "zoo/__init__.py";
const CJK_LINE = '名前 = "😀"; message = greet(名前)';

const definition = spot(GREETING, "def greet(", "greet");
const call = spot(MAIN, CJK_LINE, "greet");
const speak = (nth: number) => spot(ANIMALS, "    def speak(", "speak", nth);

const row: Row = {
  name: "pyright",
  fixture: "python",
  server: "pyright",
  encoding: "utf-16",
  coldStart: { from: call, to: [definition] },
  unicode: { from: call, to: [definition] },
  references: {
    at: definition,
    expect: [
      definition,
      spot(GREETING, "[greet(", "greet"),
      spot(MAIN, "import greet", "greet"),
      call,
      spot(INIT, "import greet", "greet"),
      spot(INIT, '"greet"', "greet"), // pyright counts the name in __all__
      spot(REPORT, "import greet", "greet"),
      spot(REPORT, "{greet(", "greet"),
    ],
  },
  hover: {
    at: definition,
    matches: [
      /\(function\) def greet\(name: str\) -> str/,
      /Builds a greeting — the first thing every visitor hears\./,
    ],
  },
  symbols: {
    file: ANIMALS,
    expect: [
      { name: "Animal", kind: "class", at: spot(ANIMALS, "class Animal", "Animal") },
      { name: "speak", kind: "method", container: "Animal", at: speak(1) },
      { name: "Dog", kind: "class", at: spot(ANIMALS, "class Dog(", "Dog") },
      { name: "speak", kind: "method", container: "Dog", at: speak(2) },
      {
        name: "describe",
        kind: "method",
        container: "Dog",
        at: spot(ANIMALS, "    def describe(", "describe"),
      },
      { name: "speak", kind: "method", container: "Cat", at: speak(3) },
    ],
  },
  workspaceSymbols: {
    query: "speak",
    expect: [
      { name: "speak", kind: "method", container: "Animal", at: speak(1) },
      { name: "speak", kind: "method", container: "Dog", at: speak(2) },
      { name: "speak", kind: "method", container: "Cat", at: speak(3) },
    ],
  },
  rename: { at: definition, newName: "welcome" },
  diagnostics: {
    file: REPORT,
    replace: ["def report(", 'broken: int = "not a number"\n\n\ndef report('],
    error: spot(REPORT, 'broken: int = "not a number"', '"not a number"'),
    code: "reportAssignmentType",
  },
};

export default row;
