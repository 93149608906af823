// vscode-json-language-server on a config validated by a schema beside it (`$schema`, relative).
import { type Row, spot } from "../row.ts";

const CONFIG = "config.json";
const noDefinition = "the JSON server offers no definition";

const row: Row = {
  name: "vscode-json-language-server (with a local $schema)",
  fixture: "json",
  server: "json",
  hover: {
    at: spot(CONFIG, '"port"', "port"),
    // The description comes from the schema, through its `$ref`.
    matches: [/The TCP port the service listens on/],
  },
  symbols: {
    file: CONFIG,
    expect: [
      { name: "name", kind: "string", at: spot(CONFIG, '"name"', "name") },
      { name: "port", kind: "number", at: spot(CONFIG, '"port"', "port") },
    ],
  },
  diagnostics: {
    file: CONFIG,
    replace: ['"port": 8080', '"port": 8080 true'],
    error: spot(CONFIG, "8080 true", "true"),
  },
  skip: {
    coldStart: noDefinition,
    unicode: noDefinition,
    references: "the JSON server offers no references",
    workspaceSymbols: "the JSON server offers no workspace symbols",
    rename: "the JSON server offers no rename",
  },
};

export default row;
