// `deno task bundle` as deno.json spells it: the one shipped file, built from worker_entry.ts (the
// CLI loaded lazily, so that its Workers evaluate only their own service), run as the README says
// and answering through its own Workers, the syntax tree's query included.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TempWorkspace } from "../helpers/workspace.ts";
import { Program } from "../helpers/program.ts";
import { buildBundle, bundleRunArgs, bundleSteps } from "../helpers/bundle.ts";
import { LIBC_COMPANION } from "../../src/libc_programs.ts";

const checkout = fileURLToPath(new URL("../../", import.meta.url));
/** A `node:` module imported at the top of a bundle (`import … from "node:…"`). */
const STATIC_NODE_IMPORT = /\b(?:from|import)\s*"node:[\w/]+"/g;

/** The answers the watcher test reads. */
interface Answer {
  ok: boolean;
  details: {
    changeTracking?: string;
    watcher?: { runsOn: string; pid?: number };
    locations?: { file: string; line: number }[];
  };
}

Deno.test("deno task bundle makes one file that answers through deno lsp from its own Workers", async () => {
  const ws = await TempWorkspace.copy("deno");
  const out = await Deno.makeTempDir({ prefix: "lspgate-bundle-task-" });
  try {
    const bundle = await buildBundle(out);
    // Its module bodies compiled with it (src/eager_bundle.ts): each in parentheses.
    const text = await Deno.readTextFile(bundle);
    const helper = /\bvar ([\w$]+)=\(([\w$]+),([\w$]+)\)=>\(\)=>\(\2&&/.exec(text)?.[1];
    assert.ok(helper, "the bundle has esbuild's __esm helper");
    const calls = (open: string) =>
      text.match(
        new RegExp(`[^\\w$.]${helper!.replace("$", "\\$")}\\(${open}(async)?\\(\\)=>`, "g"),
      )
        ?.length ?? 0;
    const lazy = calls("");
    const eager = calls("\\(");
    assert.ok(eager > 100 && lazy === 0, `${eager} module bodies eager, ${lazy} lazy`);
    // No `node:` module imported at its top: each start would load Deno's Node compatibility
    // layer (src/posix_path.ts). The few that load when first needed (MCP's streams) stay.
    assert.deepEqual(text.match(STATIC_NODE_IMPORT) ?? [], []);
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        ...bundleRunArgs(bundle),
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
        ...bundleRunArgs(bundle),
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

Deno.test("the bundle's companion is its watcher process: a tree past 1,000 folders is watched from it, exactly", async () => {
  const ws = await TempWorkspace.copy("deno");
  const out = await Deno.makeTempDir({ prefix: "lspgate-bundle-watch-" });
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-bundle-rt-" }));
  await Deno.chmod(runtime, 0o700);
  try {
    const made = await new Deno.Command("bash", {
      args: ["-c", "mkdir -p more/d{0..10}/e{0..99}"],
      cwd: ws.root,
    }).output();
    assert.equal(made.code, 0);
    const bundle = await buildBundle(out, { companion: true });
    // The companion imports no `node:` module either (the watcher process runs from it).
    const companion = await Deno.readTextFile(join(out, LIBC_COMPANION));
    assert.deepEqual(companion.match(STATIC_NODE_IMPORT) ?? [], []);
    // The README's grant for the bundle, its runtime folder this test's own.
    const lspgate = new Program(
      [
        ...bundleRunArgs(bundle, [`--allow-write=${join(runtime, "lspgate")}`]),
        "--root",
        ws.root,
      ],
      { XDG_RUNTIME_DIR: runtime },
      Deno.execPath(),
    );
    const ask = async (request: Record<string, unknown>) =>
      (await lspgate.ask(request)) as unknown as Answer;
    try {
      let id = 1;
      const definition = () =>
        ask({ id: id++, action: "definition", file: "src/main.ts", line: 7, symbol: "greet" });
      assert.equal((await definition()).ok, true);
      let status = await ask({ id: id++, action: "status" });
      const deadline = Date.now() + 20_000;
      while (status.details.changeTracking !== "exact" && Date.now() < deadline) {
        await definition();
        status = await ask({ id: id++, action: "status" });
      }
      assert.equal(status.details.changeTracking, "exact", JSON.stringify(status.details));
      assert.equal(status.details.watcher?.runsOn, "process", JSON.stringify(status.details));
      const watcherPid = status.details.watcher?.pid;
      const argv = (await Deno.readTextFile(`/proc/${watcherPid}/cmdline`)).split("\0");
      assert.ok(
        argv.includes(join(out, LIBC_COMPANION)),
        `the watcher process runs the bundle's companion: ${argv.join(" ")}`,
      );
      // Another tool moves greet down three lines on disk; the next question answers from there.
      const before = (await ws.locate("src/greet.ts", "function greet")).line;
      const greet = join(ws.root, "src", "greet.ts");
      await Deno.writeTextFile(
        greet,
        "// one\n// two\n// three\n" + await Deno.readTextFile(greet),
      );
      const moved = await definition();
      assert.equal(moved.ok, true, JSON.stringify(moved));
      assert.deepEqual(
        moved.details.locations?.map((l) => [l.file, l.line]),
        [["src/greet.ts", before + 3]],
      );
    } finally {
      assert.equal((await lspgate.finish()).code, 0);
    }
  } finally {
    await ws.remove();
    await Deno.remove(out, { recursive: true });
    await Deno.remove(runtime, { recursive: true });
  }
});
