// yaml-language-server on a file validated by a schema beside it (the modeline), with an anchor.
import { type Row, spot } from "../row.ts";

const YAML = "service.yaml";
const anchor = spot(YAML, "&defaults", "defaults");
const alias = spot(YAML, '"名前 😀", <<: *defaults', "defaults");

const row: Row = {
  name: "yaml-language-server (with a local schema)",
  fixture: "yaml",
  server: "yaml",
  hover: { at: spot(YAML, "replicas:", "replicas"), matches: [/How many copies run\./] },
  symbols: {
    file: YAML,
    expect: [
      { name: "replicas", kind: "number", at: spot(YAML, "replicas:", "replicas") },
      { name: "image", kind: "string", container: "defaults", at: spot(YAML, "image:", "image") },
      { name: "web", kind: "module", container: "services", at: spot(YAML, "web:", "web") },
    ],
  },
  // The alias sits after CJK and an emoji: the edit's column is converted back to code points.
  rename: { at: anchor, newName: "base", expect: [anchor, alias] },
  diagnostics: {
    file: YAML,
    replace: ["replicas: 2", "replicas: two"],
    error: spot(YAML, "replicas: two", "two"),
    message: /Incorrect type\. Expected "integer"/,
  },
  skip: {
    coldStart: "a YAML file's anchors are its own: nothing resolves across files",
    unicode: "an alias's definition is the whole anchored node, which spans lines " +
      "(the rename check covers a column after CJK and an emoji)",
    references: "yaml-language-server offers no references",
    workspaceSymbols: "yaml-language-server offers no workspace symbols",
  },
};

export default row;
