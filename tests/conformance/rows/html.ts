// vscode-html-language-server on a page with an embedded script (answered by its JavaScript mode).
import { type Row, spot } from "../row.ts";

const HTML = "index.html";
const CJK_LINE = 'const 名前 = "😀"; document.getElementById("out").textContent = greet(名前);';

const definition = spot(HTML, "function greet(", "greet");
const call = spot(HTML, CJK_LINE, "greet");

const row: Row = {
  name: "vscode-html-language-server (embedded JavaScript)",
  fixture: "html",
  server: "html",
  unicode: { from: call, to: [definition] },
  references: { at: definition, expect: [definition, call] },
  hover: { at: call, matches: [/function greet\(name: any\): string/] },
  symbols: {
    file: HTML,
    expect: [
      { name: "greet", kind: "function", at: definition },
      { name: "head", kind: "field", container: "html", at: spot(HTML, "<head>", "head") },
    ],
  },
  rename: { at: definition, newName: "welcome" },
  diagnostics: {
    file: HTML,
    replace: ['return "hello " + name;', 'return "hello " + ;'],
    error: spot(HTML, 'return "hello " + ;', ";"),
  },
  skip: {
    coldStart: "a page's scripts are its own: the HTML server resolves nothing across files",
    workspaceSymbols: "the HTML server offers no workspace symbols",
  },
};

export default row;
