// clangd on the same C project with no compile_commands.json and no compile_flags.txt: clangd
// guesses the flags, and lspgate still hands it every source file for its index.
import type { Row } from "../row.ts";
import cRow from "./clangd_c.ts";

const row: Row = {
  ...cRow,
  name: "clangd (C, no compile flags)",
  async setup(ws) {
    await Deno.remove(ws.path("compile_flags.txt"));
  },
};

export default row;
