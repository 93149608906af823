// dockerfile-language-server-nodejs on a two-stage Dockerfile (a file known by name, not extension).
import { type Row, spot } from "../row.ts";

const DOCKERFILE = "Dockerfile";

const arg = spot(DOCKERFILE, "ARG VERSION", "VERSION");
const use = spot(DOCKERFILE, 'echo "名前 😀 $VERSION"', "VERSION");

const row: Row = {
  name: "dockerfile-language-server-nodejs",
  fixture: "dockerfile",
  server: "dockerfile",
  unicode: { from: use, to: [arg] },
  hover: {
    at: spot(DOCKERFILE, "EXPOSE"),
    matches: [/Define the network `port`s that this container will listen on at runtime\./],
  },
  symbols: {
    file: DOCKERFILE,
    expect: [
      { name: "ARG", kind: "function", at: spot(DOCKERFILE, "ARG") },
      { name: "EXPOSE", kind: "function", at: spot(DOCKERFILE, "EXPOSE") },
    ],
  },
  rename: { at: arg, newName: "RELEASE", expect: [arg, use] },
  diagnostics: {
    file: DOCKERFILE,
    replace: ["EXPOSE 8080", "EXPOSE 80a"],
    error: spot(DOCKERFILE, "EXPOSE 80a", "80a"),
    message: /Invalid containerPort: 80a/,
  },
  skip: {
    coldStart: "a Dockerfile's stages and arguments are its own: nothing resolves across files",
    references: "the Dockerfile server offers no references",
    workspaceSymbols: "the Dockerfile server offers no workspace symbols",
  },
};

export default row;
