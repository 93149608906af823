// `deno task bundle` as deno.json spells it: the one shipped file, built from worker_entry.ts (the
// CLI loaded lazily, so that its Workers evaluate only their own service), run as the README says
// and answering through its own Workers, the syntax tree's query included.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { V8_FLAGS_ARG } from "../../src/v8_flags.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const checkout = fileURLToPath(new URL("../../", import.meta.url));

/** The bundle task's `deno` arguments, writing to `output` instead of dist/lspgate.js. */
async function bundleArgs(output: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(checkout, "deno.json")));
  const [deno, ...args] = (config.tasks.bundle as string).split(" ");
  assert.equal(deno, "deno");
  const at = args.indexOf("-o");
  assert.ok(at > 0, `the bundle task names its output with -o: ${config.tasks.bundle}`);
  args[at + 1] = output;
  return ["bundle", "--quiet", ...args.slice(1)];
}

Deno.test("deno task bundle makes one file that answers through deno lsp from its own Workers", async () => {
  const ws = await TempWorkspace.copy("deno");
  const out = await Deno.makeTempDir({ prefix: "lspgate-bundle-task-" });
  try {
    const bundle = join(out, "lspgate.js");
    const built = await new Deno.Command(Deno.execPath(), {
      args: await bundleArgs(bundle),
      cwd: checkout,
      stderr: "piped",
    }).output();
    assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--unstable-worker-options",
        V8_FLAGS_ARG,
        "--allow-read",
        "--allow-env",
        "--allow-run",
        bundle,
        "--root",
        ws.root,
      ],
      cwd: out,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const requests = [
      { id: 1, action: "definition", file: "src/main.ts", line: 7, symbol: "greet" },
      { id: 2, action: "hover", file: "src/greet.ts", query: "greet" },
    ];
    const writer = child.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode(requests.map((r) => JSON.stringify(r) + "\n").join("")),
    );
    await writer.close();
    const result = await child.output();
    assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
    const answers = new Map(
      new TextDecoder().decode(result.stdout).trim().split("\n").map((line) => {
        const answer = JSON.parse(line);
        return [answer.id, answer];
      }),
    );
    const definition = answers.get(1);
    assert.equal(definition?.ok, true, JSON.stringify(definition));
    assert.deepEqual(
      definition.details.locations.map((l: { file: string; line: number }) => [l.file, l.line]),
      [["src/greet.ts", (await ws.locate("src/greet.ts", "function greet")).line]],
    );
    const hover = answers.get(2);
    assert.equal(hover?.ok, true, JSON.stringify(hover));
    assert.match(hover.details.text, /greet/);
  } finally {
    await ws.remove();
    await Deno.remove(out, { recursive: true });
  }
});
