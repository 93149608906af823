// TypeScript 7's own `tsc --lsp --stdio`, for a project whose TypeScript is 7.x. The project's
// own TypeScript is never run (the root is not trusted): the user's TypeScript 7, on PATH or in
// lspgate's tools folder, serves it.
import { join } from "node:path";
import { ensureTypeScript7 } from "../../tools.ts";
import type { Row } from "../row.ts";
import { typescriptChecks } from "./typescript.ts";

const row: Row = {
  name: "TypeScript 7 (tsc --lsp)",
  server: "typescript",
  ...typescriptChecks,
  async ensure() {
    const modules = await ensureTypeScript7();
    // The user's TypeScript 7, as `deno task test` puts it on PATH.
    const bin = join(modules, ".bin");
    const path = Deno.env.get("PATH") ?? "";
    if (!path.split(":").includes(bin)) Deno.env.set("PATH", `${path}:${bin}`);
  },
  async setup(ws) {
    // The project depends on TypeScript 7 (installed, as npm would, in its node_modules).
    await Deno.symlink(await ensureTypeScript7(), join(ws.root, "node_modules"));
    await ws.write("package.json", JSON.stringify({ devDependencies: { typescript: "7.0.2" } }));
  },
};

export default row;
