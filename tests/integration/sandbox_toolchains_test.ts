// The sandbox serves the server (issue 15): what a server legitimately reads — a module cache, a
// crate registry, a virtualenv, its own caches — is visible read-only, so answers that reach into
// dependencies are the same sandboxed as unsandboxed. Each case runs the real lspgate over a
// real server twice, `--sandbox bwrap` and `--sandbox none`, and compares the answers.
import assert from "node:assert/strict";
import { join } from "node:path";
import { locate } from "../helpers/locate.ts";
import { hostileRepo, ok, runLspgate } from "../security/hostile.ts";

const skip = Deno.env.get("LSPGATE_NO_BWRAP") === "1";

/** The answers' details to `requests`, under each sandbox mode. */
async function bothWays(
  root: string,
  requests: Record<string, unknown>[],
): Promise<{ bwrap: Record<string, unknown>[]; none: Record<string, unknown>[] }> {
  const answers = async (sandbox: string) => {
    const { lines } = await runLspgate(root, requests, { flags: ["--sandbox", sandbox] });
    return lines.map(ok);
  };
  return { bwrap: await answers("bwrap"), none: await answers("none") };
}

/** Runs a program to set a project up (outside any sandbox, as its user would); throws on failure. */
async function run(cwd: string, program: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(program, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`${program} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** What an answer says, without what differs run to run. */
function comparable(details: Record<string, unknown>): unknown {
  const { sandboxed: _sandboxed, sandboxBackend: _backend, ...rest } = details;
  return rest;
}

Deno.test({
  name: "Go module with a dependency from the Go proxy: definition, hover and references into " +
    "the module cache are the same under bubblewrap as unconfined",
  ignore: skip,
  async fn() {
    const repo = await hostileRepo({
      "go.mod": "module example.com/app\n\ngo 1.22\n\nrequire github.com/fatih/structtag v1.2.0\n",
      "go.sum":
        "github.com/fatih/structtag v1.2.0 h1:/OdNE99OxoI/PqaW/SuSK9uxxT3f/tcSZgon/ssNSx4=\n" +
        "github.com/fatih/structtag v1.2.0/go.mod h1:mBJUNpUnHmRKrKlQQlmCrh5PuhftFbNv8Ys4/aAZl94=\n",
      "main.go": 'package main\n\nimport (\n\t"fmt"\n\n\t"github.com/fatih/structtag"\n)\n\n' +
        'func main() {\n\ttags, err := structtag.Parse(`json:"name"`)\n\tfmt.Println(tags, err)\n' +
        '\tagain, _ := structtag.Parse(`yaml:"x"`)\n\tfmt.Println(again.Len())\n}\n',
    });
    try {
      // As its user would have: the dependency in the module cache (from the proxy if missing).
      await run(repo.root, "go", "mod", "download");
      const modcache = (await run(repo.root, "go", "env", "GOMODCACHE")).trim();
      const main = await Deno.readTextFile(join(repo.root, "main.go"));
      const at = { file: "main.go", ...locate(main, "Parse(") };
      const { bwrap, none } = await bothWays(repo.root, [
        { id: 1, action: "definition", ...at },
        { id: 2, action: "hover", ...at },
        { id: 3, action: "references", ...at },
        { id: 4, action: "hover", file: "main.go", ...locate(main, "Len()") },
      ]);
      const [definition] = bwrap[0].locations as { file: string; line: number }[];
      assert.equal(definition.file, join(modcache, "github.com/fatih/structtag@v1.2.0/tags.go"));
      assert.equal(definition.line, 42);
      assert.match(bwrap[1].text as string, /func structtag\.Parse\(tag string\)/);
      assert.equal((bwrap[2].locations as unknown[]).length, 3, JSON.stringify(bwrap[2]));
      assert.match(bwrap[3].text as string, /func \(t \*structtag\.Tags\) Len\(\) int/);
      assert.deepEqual(bwrap.map(comparable), none.map(comparable));
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  },
});
