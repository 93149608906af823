// The project's own package.json that lspgate reads to name its TypeScript (never to run it, in an
// untrusted root) is read as the workspace boundary reads: a helper linked
// node_modules/typescript/package.json to a file outside, and `status` showed that file's
// `version` to a sub-agent; a FIFO there held the server's start, and lspgate's exit, for good.
import assert from "node:assert/strict";
import { join } from "node:path";
import { hostileRepo, runLspgate, SECRET } from "./hostile.ts";

const FILES = {
  "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true }, include: ["src"] }),
  "package.json": JSON.stringify({ name: "w", version: "1.0.0" }),
  "src/t.ts": "export const t = 1;\n",
};
const HOVER = { id: 1, action: "hover", file: "src/t.ts", line: 1, symbol: "t" };

Deno.test("a project package.json linked outside the root is not read: its version is not shown", async () => {
  const repo = await hostileRepo(FILES);
  try {
    await Deno.writeTextFile(join(repo.outside, "pkg.json"), JSON.stringify({ version: SECRET }));
    // Named like a package's manifest, but not TypeScript's: not read either.
    await Deno.mkdir(join(repo.outside, "typescript"));
    await Deno.writeTextFile(
      join(repo.outside, "typescript/package.json"),
      JSON.stringify({ name: "secrets", version: SECRET }),
    );
    for (const target of ["pkg.json", "typescript/package.json"]) {
      await Deno.mkdir(join(repo.root, "node_modules/typescript"), { recursive: true });
      const link = join(repo.root, "node_modules/typescript/package.json");
      await Deno.remove(link).catch(() => {});
      await Deno.symlink(join(repo.outside, target), link);
      const run = await runLspgate(repo.root, [HOVER, { id: 2, action: "status" }], {
        flags: ["--role", "subagent"],
      });
      assert.equal(run.lines[0].ok, true, JSON.stringify(run.lines[0]));
      assert.doesNotMatch(run.stdout, new RegExp(SECRET), target);
    }
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("a FIFO as the project's package.json holds nothing back: the question is answered and lspgate exits", async () => {
  const repo = await hostileRepo(FILES);
  try {
    await Deno.mkdir(join(repo.root, "node_modules/typescript"), { recursive: true });
    const fifo = await new Deno.Command("mkfifo", {
      args: [join(repo.root, "node_modules/typescript/package.json")],
    }).output();
    assert.equal(fifo.code, 0);
    const run = await runLspgate(repo.root, [HOVER], { flags: ["--timeout", "5000"] });
    assert.equal(run.lines[0].ok, true, JSON.stringify(run.lines[0]));
    assert.match(JSON.stringify(run.lines[0]), /const t: 1/);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("a build folder linked outside the root: whether it holds a compile_commands.json is not told", async () => {
  const statusOf = async (withCommands: boolean) => {
    const repo = await hostileRepo({ "m.c": "int main(void) { return 0; }\n" });
    try {
      if (withCommands) {
        await Deno.writeTextFile(join(repo.outside, "compile_commands.json"), "[]\n");
      }
      await Deno.symlink(repo.outside, join(repo.root, "build"));
      const run = await runLspgate(repo.root, [
        { id: 1, action: "diagnostics", file: "m.c" },
        { id: 2, action: "status" },
      ], { flags: ["--role", "subagent"] });
      const text = (run.lines[1].content as { text: string }[])[0].text;
      return text.split("\n").filter((line) => line.includes("clangd for"));
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  };
  const [there, absent] = [await statusOf(true), await statusOf(false)];
  assert.equal(there.length, 1);
  assert.doesNotMatch(there[0], /compile_commands\.json in/);
  assert.deepEqual(
    there.map((l) => l.replace(/pid \d+|up \d+ s|\d+ MiB/g, "")),
    absent.map((l) => l.replace(/pid \d+|up \d+ s|\d+ MiB/g, "")),
  );
});
