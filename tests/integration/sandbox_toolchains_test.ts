// The sandbox serves the server (issue 15): what a server legitimately reads — a module cache, a
// crate registry, a virtualenv, its own caches — is visible read-only, so answers that reach into
// dependencies are the same sandboxed as unsandboxed. Each case runs the real lspgate over a
// real server twice, `--sandbox bwrap` and `--sandbox none`, and compares the answers.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { locate } from "../helpers/locate.ts";
import { hostileRepo, ok, runLspgate } from "../security/hostile.ts";
import { ensureRustAnalyzer, registersTest, TOOLS_DIR } from "../tools.ts";
import { pathExists } from "../../src/fs.ts";

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

const PY_FILES = {
  "pyproject.toml": '[project]\nname = "ws"\nversion = "0.1.0"\n',
  "util.py": "def greet(name: str) -> str:\n    return name\n",
  "main.py": "import json\n\nfrom util import greet\n\nprint(greet(json.dumps(1)))\n",
};

/** Python questions whose answers need the server running: a definition, a stdlib hover. */
async function pythonAnswers(
  root: string,
  options: { path?: string; env?: Record<string, string>; flags?: string[] },
  sandbox: string,
) {
  const main = await Deno.readTextFile(join(root, "main.py"));
  const { lines } = await runLspgate(root, [
    { id: 1, action: "definition", file: "main.py", ...locate(main, "greet(json") },
    { id: 2, action: "hover", file: "main.py", ...locate(main, "dumps") },
    { id: 3, action: "status" },
  ], { ...options, flags: [...options.flags ?? [], "--sandbox", sandbox] });
  return lines.map(ok);
}

/** The one Python server that answered, from `status`. */
function pythonServer(details: Record<string, unknown>): { server: string; command?: string[] } {
  const servers = details.servers as { server: string; command?: string[] }[];
  assert.equal(servers.length, 1, JSON.stringify(servers));
  return servers[0];
}

/** A virtualenv (made once, in lspgate's test tools folder) with basedpyright installed by pip. */
async function basedpyrightVenv(): Promise<string> {
  // At its real path: the scripts' #! lines name the path it was made at, and the sandbox shows
  // real paths only (a link in the way is not recreated inside).
  const venv = join(await Deno.realPath(TOOLS_DIR), "venv-basedpyright");
  if (!(await pathExists(join(venv, "bin", "basedpyright-langserver")))) {
    await run(dirname(venv), "python3", "-m", "venv", venv);
    await run(venv, join(venv, "bin", "pip"), "install", "-q", "basedpyright==1.40.2");
  }
  return await Deno.realPath(venv);
}

Deno.test({
  name: "basedpyright installed with pip in a virtualenv starts under bubblewrap and answers " +
    "as unconfined (its venv's python links to a Python outside the venv)",
  ignore: skip,
  async fn() {
    const venv = await basedpyrightVenv();
    const repo = await hostileRepo(PY_FILES);
    const config = join(repo.base, "config.json");
    await Deno.writeTextFile(config, `{"servers": {"basedpyright": {"preferred": true}}}\n`);
    try {
      const options = {
        path: `${join(venv, "bin")}:${Deno.env.get("PATH")}`,
        flags: ["--config", config],
      };
      const bwrap = await pythonAnswers(repo.root, options, "bwrap");
      const none = await pythonAnswers(repo.root, options, "none");
      const server = pythonServer(bwrap[2]);
      assert.equal(server.server, "basedpyright");
      assert.equal(server.command?.[0], join(venv, "bin", "basedpyright-langserver"));
      assert.deepEqual(
        (bwrap[0].locations as { file: string; line: number }[]).map((l) => [l.file, l.line]),
        [["util.py", 1]],
      );
      assert.match(bwrap[1].text as string, /def dumps\(/);
      assert.deepEqual(bwrap.slice(0, 2).map(comparable), none.slice(0, 2).map(comparable));
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  },
});

/** pyright installed only in a tools folder of lspgate's (LSPGATE_TOOLS_DIR), once. */
async function pyrightToolsFolder(): Promise<string> {
  const tools = join(TOOLS_DIR, "pyright-only");
  if (!(await pathExists(join(tools, "node_modules", ".bin", "pyright-langserver")))) {
    await Deno.mkdir(tools, { recursive: true });
    await run(
      tools,
      "npm",
      "install",
      "--no-audit",
      "--no-fund",
      "--prefix",
      tools,
      "pyright@1.1.414",
    );
  }
  return await Deno.realPath(tools);
}

Deno.test({
  name: "pyright only in lspgate's tools folder, node reached through a link on PATH: starts " +
    "under bubblewrap and answers as unconfined",
  ignore: skip,
  async fn() {
    const tools = await pyrightToolsFolder();
    const repo = await hostileRepo(PY_FILES);
    try {
      // A PATH with node and python3 (links in a folder of their own) and no pyright-langserver:
      // the server's script names `#!/usr/bin/env node`, found through that folder inside too.
      const bin = join(repo.base, "bin");
      await Deno.mkdir(bin);
      for (const name of ["node", "python3", "bwrap"]) {
        const found = (await run(repo.base, "sh", "-c", `command -v ${name}`)).trim();
        await Deno.symlink(await Deno.realPath(found), join(bin, name));
      }
      const options = { path: bin, env: { LSPGATE_TOOLS_DIR: tools } };
      const bwrap = await pythonAnswers(repo.root, options, "bwrap");
      const none = await pythonAnswers(repo.root, options, "none");
      const server = pythonServer(bwrap[2]);
      assert.equal(server.server, "pyright");
      assert.ok(server.command?.[0].startsWith(tools), server.command?.[0]);
      assert.deepEqual(
        (bwrap[0].locations as { file: string; line: number }[]).map((l) => [l.file, l.line]),
        [["util.py", 1]],
      );
      assert.match(bwrap[1].text as string, /def dumps\(/);
      assert.deepEqual(bwrap.slice(0, 2).map(comparable), none.slice(0, 2).map(comparable));
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  },
});

// Needs the user's rust-analyzer: in the test runner's second pass while its first build runs (run
// beside that build, it raced it: answered before rust-analyzer had loaded, under the build's load).
if (registersTest(true)) {
  Deno.test({
    name: "Rust crate with a crates.io dependency (semver): cross-crate definition, hover and " +
      "references are the same under bubblewrap as unconfined (CARGO_HOME's registry shown)",
    ignore: skip,
    async fn() {
      await ensureRustAnalyzer();
      const repo = await hostileRepo({
        "Cargo.toml": '[package]\nname = "uses_semver"\nversion = "0.1.0"\nedition = "2021"\n\n' +
          '[dependencies]\nsemver = "1"\n',
        "src/lib.rs": "use semver::Version;\n\npub fn parse(text: &str) -> Version {\n" +
          "    Version::parse(text).unwrap()\n}\n\npub fn major(text: &str) -> u64 {\n" +
          "    let version: Version = parse(text);\n    version.major\n}\n",
      });
      try {
        // As its user would have: the dependency fetched into CARGO_HOME (from crates.io if missing).
        await run(repo.root, "cargo", "fetch");
        const lib = await Deno.readTextFile(join(repo.root, "src/lib.rs"));
        const at = { file: "src/lib.rs", ...locate(lib, "parse(text).unwrap") };
        const { bwrap, none } = await bothWays(repo.root, [
          { id: 1, action: "hover", file: "src/lib.rs", ...locate(lib, "major\n") },
          { id: 2, action: "definition", ...at },
          { id: 3, action: "hover", ...at },
          { id: 4, action: "references", file: "src/lib.rs", ...locate(lib, "Version;") },
        ]);
        const [definition] = bwrap[1].locations as { file: string; line: number }[];
        assert.match(definition.file, /\/registry\/src\/[^/]+\/semver-1\.\d+\.\d+\/src\/lib\.rs$/);
        assert.match(bwrap[0].text as string, /pub major: u64/);
        assert.match(bwrap[2].text as string, /pub fn parse\(text: &str\) -> Result<Self, Error>/);
        // The use, the return type, the call and the annotation: 4 in the crate, plus semver's own.
        const refs = bwrap[3].locations as { file: string }[];
        assert.equal(refs.filter((r) => r.file === "src/lib.rs").length, 4, JSON.stringify(refs));
        assert.equal(bwrap[1].partial, false, JSON.stringify(bwrap[1]));
        assert.deepEqual(bwrap.map(comparable), none.map(comparable));
      } finally {
        await Deno.remove(repo.base, { recursive: true });
      }
    },
  });
}
