// `deno task bundle` as deno.json spells it: the one shipped file, built from worker_entry.ts (the
// CLI loaded lazily, so that its Workers evaluate only their own service), run as the README says
// and answering through its own Workers, the syntax tree's query included.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { V8_FLAGS_ARG } from "../../src/v8_flags.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const checkout = fileURLToPath(new URL("../../", import.meta.url));

/** The bundle task's commands: `deno bundle …` writing to `output`, then shipping its parsers. */
async function bundleArgs(output: string): Promise<string[]> {
  return (await bundleSteps(output))[0];
}

/** Each `&&`-joined command of the bundle task as `deno` arguments, writing beside `output`. */
async function bundleSteps(output: string): Promise<string[][]> {
  const config = JSON.parse(await Deno.readTextFile(join(checkout, "deno.json")));
  return (config.tasks.bundle as string).split(" && ").map((step, i) => {
    const [deno, ...args] = step.split(" ");
    assert.equal(deno, "deno");
    if (i === 0) {
      const at = args.indexOf("-o");
      assert.ok(at > 0, `the bundle task names its output with -o: ${config.tasks.bundle}`);
      args[at + 1] = output;
      return ["bundle", "--quiet", ...args.slice(1)];
    }
    // The parsers go beside the bundle: dist/parsers for dist/lspgate.js.
    return args.map((arg) =>
      arg === "dist/parsers"
        ? join(dirname(output), "parsers")
        : arg === "--allow-write=dist"
        ? `--allow-write=${dirname(output)}`
        : arg
    );
  });
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

Deno.test("the bundle carries its parsers: no registry and an empty Deno cache, a file no server handles still gets its outline", async () => {
  const ws = await TempWorkspace.copy("deno");
  const out = await Deno.makeTempDir({ prefix: "lspgate-bundle-parsers-" });
  const emptyCache = await Deno.makeTempDir({ prefix: "lspgate-bundle-denodir-" });
  try {
    const bundle = join(out, "dist", "lspgate.js");
    await Deno.mkdir(dirname(bundle));
    for (const args of await bundleSteps(bundle)) {
      const step = await new Deno.Command(Deno.execPath(), { args, cwd: checkout, stderr: "piped" })
        .output();
      assert.equal(step.code, 0, new TextDecoder().decode(step.stderr));
    }
    // Ruby: no server installed here, so the outline comes from the syntax parser.
    await ws.write("shop.rb", "class Shop\n  def open\n    true\n  end\nend\n");
    const result = await new Deno.Command(Deno.execPath(), {
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
        "--no-servers",
      ],
      cwd: out,
      // Nothing to fetch from: a parser the bundle does not carry cannot load.
      env: { DENO_DIR: emptyCache, NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = result.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode(
        JSON.stringify({ id: 1, action: "symbols", file: "shop.rb" }) + "\n",
      ),
    );
    await writer.close();
    const output = await result.output();
    const answer = JSON.parse(new TextDecoder().decode(output.stdout).trim());
    assert.equal(answer.ok, true, JSON.stringify(answer) + new TextDecoder().decode(output.stderr));
    assert.equal(answer.details.syntaxOnly, true);
    assert.deepEqual(
      answer.details.symbols.map((s: { name: string; kind: string }) => [s.name, s.kind]),
      [["Shop", "class"], ["open", "method"]],
    );
  } finally {
    await ws.remove();
    await Deno.remove(out, { recursive: true });
    await Deno.remove(emptyCache, { recursive: true });
  }
});
