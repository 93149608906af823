// The one shipped file (`deno task bundle`) is its own Landlock launcher: run from a folder with
// nothing else in it, `--sandbox landlock` starts deno lsp under Landlock, which answers inside the
// root and shows nothing of a file outside it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { locate } from "../helpers/locate.ts";
import { hostileRepo } from "./hostile.ts";
import { buildBundle, bundleRunArgs } from "../helpers/bundle.ts";

const SECRET = "OUTSIDE-CONTENTS-b7d0e2";

Deno.test("the bundled lspgate is its own Landlock launcher: deno lsp answers confined", async () => {
  const repo = await hostileRepo({
    "deno.json": "{}\n",
    "inner.ts": "export function innerGreeting(name: string): string {\n  return name;\n}\n",
    "main.ts": `import { secret } from "../outside/secret.ts";\n` +
      `import { innerGreeting } from "./inner.ts";\n\n` +
      `export const got = secret;\nexport const hi = innerGreeting("x");\n`,
  });
  await Deno.writeTextFile(join(repo.outside, "secret.ts"), `export const secret = "${SECRET}";\n`);
  const out = await Deno.makeTempDir({ prefix: "lspgate-bundle-landlock-" });
  try {
    const bundle = await buildBundle(out);
    const text = await Deno.readTextFile(join(repo.root, "main.ts"));
    const requests = [
      { id: 1, action: "hover", file: "main.ts", ...locate(text, "secret;") },
      { id: 2, action: "definition", file: "main.ts", ...locate(text, "innerGreeting(") },
      { id: 3, action: "status" },
    ];
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        ...bundleRunArgs(bundle),
        "--root",
        repo.root,
        "--role",
        "subagent",
        "--sandbox",
        "landlock",
      ],
      cwd: out,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode(requests.map((r) => JSON.stringify(r) + "\n").join("")),
    );
    await writer.close();
    const result = await child.output();
    const stdout = new TextDecoder().decode(result.stdout);
    assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
    assert.ok(!stdout.includes(SECRET), `outside contents leaked:\n${stdout}`);
    const answers = new Map(
      stdout.trim().split("\n").map((line) => {
        const answer = JSON.parse(line);
        return [answer.id, answer];
      }),
    );
    const hover = answers.get(1);
    assert.equal(hover?.ok, true, JSON.stringify(hover));
    assert.equal(hover.details.sandboxBackend, "landlock");
    const definition = answers.get(2);
    assert.equal(definition?.ok, true, JSON.stringify(definition));
    const at = locate(await Deno.readTextFile(join(repo.root, "inner.ts")), "innerGreeting");
    assert.deepEqual(
      definition.details.locations.map((l: { file: string; line: number }) => [l.file, l.line]),
      [["inner.ts", at.line]],
    );
    assert.equal(answers.get(3)?.details.sandboxBackend, "landlock");
  } finally {
    await Deno.remove(repo.base, { recursive: true });
    await Deno.remove(out, { recursive: true });
  }
});
