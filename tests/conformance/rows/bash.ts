// bash-language-server on two scripts, one sourcing the other; diagnostics from ShellCheck.
import { type Row, spot } from "../row.ts";

const LIB = "lib/greet.sh";
const MAIN = "main.sh";
const CJK_LINE = 'msg="名前 😀"; greet "$msg"';

const definition = spot(LIB, "greet() {", "greet");
const call = spot(MAIN, CJK_LINE, "greet");

const row: Row = {
  name: "bash-language-server (with ShellCheck)",
  fixture: "bash",
  server: "bash",
  references: {
    at: definition,
    expect: [definition, spot(LIB, 'greet "$1"', "greet"), call],
  },
  hover: {
    at: call,
    matches: [/Function: \*\*greet\*\*/, /Prints a greeting for its first argument\./],
  },
  symbols: {
    file: LIB,
    expect: [
      { name: "greet", kind: "function", at: definition },
      { name: "name", kind: "variable", container: "greet", at: spot(LIB, "local name", "name") },
      { name: "shout", kind: "function", at: spot(LIB, "shout() {", "shout") },
    ],
  },
  workspaceSymbols: {
    query: "shout",
    expect: [{ name: "shout", kind: "function", at: spot(LIB, "shout() {", "shout") }],
  },
  rename: { at: definition, newName: "welcome" },
  diagnostics: {
    file: LIB,
    replace: ['echo "hello ${name}"', "return 42 3"],
    error: spot(LIB, "return 42 3", "42"),
    code: "SC2151",
  },
  skip: {
    coldStart: "its definition is the whole function (lines 5–8), which a one-line spot cannot " +
      "name; tests/integration/languages_test.ts checks the cross-file jump from a cold start",
    unicode: "as coldStart; the hover and references checks cover the column after CJK and emoji",
  },
};

export default row;
