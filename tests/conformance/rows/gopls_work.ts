// gopls on a go.work workspace of two modules: the app module uses the greet module, found
// through go.work alone (no replace, no require); one gopls serves both from the go.work folder.
import { ensureGopls } from "../../tools.ts";
import type { Row, Spot } from "../row.ts";
import go from "./gopls.ts";

/** The gopls row's places, moved into the two modules. */
function moved(spot: Spot): Spot {
  return { ...spot, file: spot.file === "main.go" ? "app/main.go" : spot.file };
}

const row: Row = {
  ...go,
  name: "gopls (go.work, two modules)",
  fixture: "gowork",
  ensure: ensureGopls,
  coldStart: { from: moved(go.coldStart!.from), to: go.coldStart!.to.map(moved) },
  unicode: { from: moved(go.unicode!.from), to: go.unicode!.to.map(moved) },
  references: { at: moved(go.references!.at), expect: go.references!.expect.map(moved) },
  hover: { ...go.hover!, at: moved(go.hover!.at) },
  workspaceSymbols: {
    query: "Speak",
    expect: go.workspaceSymbols!.expect.map((s) => ({ ...s, container: "example.com/greet" })),
  },
  rename: { ...go.rename!, expect: go.rename!.expect!.map(moved) },
  async setup(ws) {
    // The modules' own roots must not split the workspace: one server, at the go.work folder.
    await ws.write("app/extra.go", "package main\n");
  },
};

export default row;
