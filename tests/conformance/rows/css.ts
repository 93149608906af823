// vscode-css-language-server on one stylesheet with a custom property used twice.
import { type Row, spot } from "../row.ts";

const CSS = "style.css";
const CJK_LINE = 'content: "名前 😀"; border-color: var(--brand);';

const definition = spot(CSS, "--brand: #", "--brand");
const use = spot(CSS, CJK_LINE, "--brand");

const row: Row = {
  name: "vscode-css-language-server",
  fixture: "css",
  server: "css",
  references: {
    at: definition,
    expect: [definition, spot(CSS, "color: var(--brand)", "--brand"), use],
  },
  hover: { at: spot(CSS, ".button {", "button"), matches: [/<element class="button">/] },
  symbols: {
    file: CSS,
    expect: [
      { name: ":root", kind: "class", at: spot(CSS, ":root") },
      { name: ".button", kind: "class", at: spot(CSS, ".button {", ".button") },
      { name: ".button:hover", kind: "class", at: spot(CSS, ".button:hover") },
    ],
  },
  rename: { at: definition, newName: "--accent" },
  diagnostics: {
    file: CSS,
    replace: ["padding: 4px;", "padding: ;"],
    error: spot(CSS, "padding: ;", ";"),
  },
  skip: {
    unicode: "its hover's range is the whole declaration, not the name; tests/integration/" +
      "languages_test.ts checks the definition from a column after CJK and an emoji",
    coldStart: "a stylesheet's names are its own: the CSS server resolves nothing across files",
    workspaceSymbols: "the CSS server offers no workspace symbols",
  },
};

export default row;
