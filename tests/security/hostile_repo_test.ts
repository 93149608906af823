// A hostile repository chooses nothing that runs: its own server binaries, its TypeScript, its
// tsconfig plugins, its Python interpreter and PATH folders inside it are never executed, and
// answers still come from the user's servers. Trusted roots run their own programs sandboxed.
// Each case runs the real lspgate (`deno run mod.ts`) over a real server.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { locate } from "../helpers/locate.ts";
import { LSPGATE_DIR } from "./fixture.ts";
import { ensureRustAnalyzer, registersTest } from "../tools.ts";
import {
  evilModule,
  evilScript,
  hostileRepo,
  markers,
  ok,
  pathWith,
  runLspgate,
  SECRET,
} from "./hostile.ts";

const tsFiles = {
  "package.json": `{"name": "hostile", "private": true}\n`,
  "tsconfig.json": JSON.stringify({
    compilerOptions: { strict: true, plugins: [{ name: "evil-plugin" }] },
  }),
  "biome.json": "{}\n",
  "src/util.ts": "export function greet(name: string): string {\n  return name;\n}\n",
  "src/main.ts": `import { greet } from "./util";\n\nexport const said = greet("x");\n`,
  // The project's own TypeScript 5 whose tsserver would run code; its plugin; its binaries.
  "node_modules/typescript/package.json": `{"name": "typescript", "version": "5.4.0"}\n`,
  "node_modules/typescript/lib/tsserver.js": evilModule("tsserver"),
  "node_modules/typescript/lib/typescript.js": evilModule("typescript-lib"),
  "node_modules/evil-plugin/package.json": `{"name": "evil-plugin", "main": "index.js"}\n`,
  "node_modules/evil-plugin/index.js": evilModule("plugin"),
  "node_modules/.bin/typescript-language-server": evilScript("tsls"),
  "node_modules/.bin/tsc": evilScript("tsc"),
  "node_modules/.bin/biome": evilScript("biome"),
  "node_modules/.bin/pyright-langserver": evilScript("pyright"),
  "node_modules/.bin/deno": evilScript("deno"),
  // A folder the agent's PATH happens to include.
  "bin/typescript-language-server": evilScript("path-tsls"),
  "bin/node": evilScript("path-node"),
  "bin/bwrap": evilScript("path-bwrap"),
};

for (const sandbox of ["auto", "none"]) {
  Deno.test(`hostile TypeScript repo (sandbox ${sandbox}): none of its programs run, the user's server answers`, async () => {
    const repo = await hostileRepo(tsFiles);
    try {
      const main = await Deno.readTextFile(join(repo.root, "src/main.ts"));
      const call = locate(main, "greet(");
      const { lines, stdout, stderr } = await runLspgate(repo.root, [
        { id: 1, action: "definition", file: "src/main.ts", ...call },
        { id: 2, action: "diagnostics", file: "src/main.ts" },
        { id: 3, action: "status" },
      ], { flags: ["--sandbox", sandbox], path: pathWith(join(repo.root, "bin")) });
      const definition = ok(lines[0]);
      assert.deepEqual(
        (definition.locations as { file: string; line: number; column: number }[])
          .map(({ file, line, column }) => ({ file, line, column })),
        [{ file: "src/util.ts", line: 1, column: 17 }],
      );
      const diagnostics = ok(lines[1]);
      assert.equal((diagnostics.files as { status: string }[])[0].status, "ok");
      const status = ok(lines[2]);
      const servers = status.servers as { server: string; command?: string[]; note?: string }[];
      const typescript = servers.find((s) => s.server === "typescript");
      assert.ok(typescript, JSON.stringify(servers));
      assert.ok(!typescript.command?.[0].startsWith(repo.root), typescript.command?.[0]);
      assert.match(typescript.note ?? "", /project's own TypeScript 5\.4\.0 is not run/);
      assert.equal(status.sandboxed, sandbox === "auto");
      assert.deepEqual(await markers(repo.outside), []);
      assert.ok(!stdout.includes(SECRET) && !stderr.includes(SECRET), "the secret leaked");
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

Deno.test("hostile repo whose TypeScript is 7.x: its tsc is not run; the user's TypeScript 7 answers", async () => {
  const repo = await hostileRepo({
    ...tsFiles,
    "node_modules/typescript/package.json": `{"name": "typescript", "version": "7.0.0"}\n`,
  });
  try {
    const main = await Deno.readTextFile(join(repo.root, "src/main.ts"));
    const { lines, stdout, stderr } = await runLspgate(repo.root, [
      { id: 1, action: "definition", file: "src/main.ts", ...locate(main, "greet(") },
      { id: 2, action: "servers" },
    ]);
    const definition = ok(lines[0]);
    assert.deepEqual(
      (definition.locations as { file: string; line: number }[]).map((l) => [l.file, l.line]),
      [["src/util.ts", 1]],
    );
    const servers = ok(lines[1]).servers as { server: string; note?: string; command?: string[] }[];
    const typescript = servers.find((s) => s.server === "typescript")!;
    assert.match(typescript.note ?? "", /TypeScript 7\.\d+\.\d+ \(native\), installed by the user/);
    assert.ok(!typescript.command?.[0].startsWith(repo.root));
    assert.deepEqual(await markers(repo.outside), []);
    assert.ok(!stdout.includes(SECRET) && !stderr.includes(SECRET), "the secret leaked");
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("hostile Python repo: its venv interpreter, its python on PATH and its pyright never run", async () => {
  const repo = await hostileRepo({
    "pyproject.toml": `[tool.pyright]\nvenvPath = "."\nvenv = "venv"\n`,
    "venv/bin/python": evilScript("venv-python"),
    "venv/bin/python3": evilScript("venv-python3"),
    "venv/pyvenv.cfg": "home = /usr/bin\n",
    "bin/python": evilScript("path-python"),
    "bin/python3": evilScript("path-python3"),
    "bin/pyright-langserver": evilScript("path-pyright"),
    "node_modules/.bin/pyright-langserver": evilScript("pyright"),
    "a.py": "def f() -> int:\n    return 1\n",
    "b.py": "from a import f\n\nx: str = f()\n",
  });
  try {
    const b = await Deno.readTextFile(join(repo.root, "b.py"));
    const { lines, stdout, stderr } = await runLspgate(repo.root, [
      { id: 1, action: "definition", file: "b.py", ...locate(b, "f()") },
      { id: 2, action: "diagnostics", file: "b.py", severity: "error" },
      { id: 3, action: "status" },
    ], { path: pathWith(join(repo.root, "bin")) });
    const definition = ok(lines[0]);
    assert.deepEqual(
      (definition.locations as { file: string; line: number; column: number }[])
        .map(({ file, line, column }) => ({ file, line, column })),
      [{ file: "a.py", line: 1, column: 5 }],
    );
    const [file] = ok(lines[1]).files as { status: string; diagnostics: { line: number }[] }[];
    assert.equal(file.status, "ok");
    assert.deepEqual(file.diagnostics.map((d) => d.line), [3]);
    const servers = ok(lines[2]).servers as { server: string; note?: string; command?: string[] }[];
    const pyright = servers.find((s) => s.server === "pyright")!;
    assert.ok(!pyright.command?.[0].startsWith(repo.root), pyright.command?.[0]);
    assert.match(pyright.note ?? "", /interpreter is not run/);
    assert.deepEqual(await markers(repo.outside), []);
    assert.ok(!stdout.includes(SECRET) && !stderr.includes(SECRET), "the secret leaked");
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

/** The real typescript-language-server the user installed, and the TypeScript 5 beside it. */
async function userTypescriptServer(): Promise<{ server: string; typescript: string }> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      const server = await Deno.realPath(join(dir, "typescript-language-server"));
      const modules = dirname(dirname(dirname(server)));
      const typescript = join(modules, "typescript");
      const version = JSON.parse(await Deno.readTextFile(join(typescript, "package.json"))).version;
      if (Number.parseInt(version, 10) < 7) return { server, typescript };
    } catch {
      // not in this folder
    }
  }
  throw new Error(
    "typescript-language-server with TypeScript 5/6 is not on PATH (deno task test installs it)",
  );
}

Deno.test("a trusted root's own server runs, but only sandboxed: it answers, leaves no mark outside, and its stderr is not shown", async () => {
  const user = await userTypescriptServer();
  const repo = await hostileRepo({
    "package.json": `{"name": "trusted", "private": true}\n`,
    "tsconfig.json": `{"compilerOptions": {"strict": true}}\n`,
    "src/util.ts": tsFiles["src/util.ts"],
    "src/main.ts": tsFiles["src/main.ts"],
    // The project's own server: tries to leave a mark outside, prints a secret, then serves.
    "node_modules/.bin/typescript-language-server": `#!/bin/sh\n` +
      `echo ran > "$OUTSIDE/marker-trusted" 2>/dev/null\necho "${SECRET}" >&2\n` +
      `exec "${user.server}" "$@"\n`,
  });
  await Deno.symlink(user.typescript, join(repo.root, "node_modules/typescript"));
  try {
    const main = await Deno.readTextFile(join(repo.root, "src/main.ts"));
    const requests = [
      { id: 1, action: "definition", file: "src/main.ts", ...locate(main, "greet(") },
      { id: 2, action: "status" },
    ];
    // The project's script runs the user's server: where that lives outside the system folders
    // (the test runner's tools folder on a fresh machine), the user names it a read-only root.
    const config = join(repo.base, "lspgate-config.json");
    await Deno.writeTextFile(
      config,
      JSON.stringify({ readOnlyRoots: [dirname(dirname(dirname(user.server)))] }),
    );
    const trusted = await runLspgate(repo.root, requests, {
      flags: ["--trust", "--sandbox", "bwrap", "--config", config],
    });
    assert.deepEqual(
      (ok(trusted.lines[0]).locations as { file: string; line: number }[]).map((
        l,
      ) => [l.file, l.line]),
      [["src/util.ts", 1]],
    );
    const status = ok(trusted.lines[1]);
    const typescript =
      (status.servers as { server: string; command?: string[]; stderr?: string[] }[])
        .find((s) => s.server === "typescript")!;
    assert.equal(
      typescript.command?.[0],
      join(repo.root, "node_modules/.bin/typescript-language-server"),
    );
    assert.deepEqual(status.trustedRoots, [repo.root]);
    assert.equal(status.sandboxed, true);
    assert.deepEqual(await markers(repo.outside), []);
    assert.ok(!trusted.stdout.includes(SECRET) && !trusted.stderr.includes(SECRET), "stderr shown");

    // Trust without a sandbox is ignored: the project's program does not run at all.
    const unconfined = await runLspgate(repo.root, requests, {
      flags: ["--trust", "--sandbox", "none"],
    });
    const servers = ok(unconfined.lines[1]).servers as { server: string; command?: string[] }[];
    assert.ok(!servers.find((s) => s.server === "typescript")!.command?.[0].startsWith(repo.root));
    assert.deepEqual(ok(unconfined.lines[1]).trustedRoots, []);
    assert.deepEqual(await markers(repo.outside), []);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("`permissions` for a hostile repo grants no program inside it and only the servers its files need", async () => {
  const repo = await hostileRepo(tsFiles);
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", join(LSPGATE_DIR, "mod.ts"), "permissions", "--root", repo.root],
      env: { PATH: pathWith(join(repo.root, "bin")) },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const run = text.match(/--allow-run=(\S+)/)?.[1].split(",") ?? [];
    assert.ok(run.length > 0, text);
    assert.deepEqual(run.filter((p) => p.startsWith(repo.root)), []);
    assert.ok(
      !run.some((p) => /pyright/.test(p)),
      `pyright granted for a repo with no Python: ${run}`,
    );
    assert.ok(run.some((p) => /typescript-language-server|tsc/.test(p)), run.join(","));
    const read = text.match(/--allow-read=(\S+)/)?.[1].split(",") ?? [];
    assert.ok(!read.includes(join(repo.root, "bin")), "a PATH folder inside the workspace is read");
    assert.match(text, /servers sandboxed: (yes|no: servers are NOT confined)/);
    // A file known by its whole name brings its server in (Dockerfile).
    await Deno.writeTextFile(join(repo.root, "Dockerfile"), "FROM debian\n");
    const withDocker = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", join(LSPGATE_DIR, "mod.ts"), "permissions", "--root", repo.root],
      stdout: "piped",
    }).output();
    const runWithDocker = new TextDecoder().decode(withDocker.stdout).match(/--allow-run=(\S+)/)
      ?.[1] ?? "";
    assert.match(runWithDocker, /docker-langserver/);
    assert.deepEqual(await markers(repo.outside), []);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

// Needs the user's rust-analyzer: in the test runner's second pass while its first build runs.
for (const sandbox of registersTest(true) ? ["auto", "none"] : []) {
  Deno.test(`hostile Rust repo (sandbox ${sandbox}): its build script, cargo wrappers, toolchain and rust-analyzer.toml run nothing`, async () => {
    await ensureRustAnalyzer();
    const repo = await hostileRepo({
      "Cargo.toml": `[package]\nname = "evil"\nversion = "0.1.0"\nedition = "2021"\n` +
        `build = "build.rs"\n`,
      // Code from the repository that cargo would run to build it.
      "build.rs": `fn main() { let _ = std::fs::write("$OUTSIDE/marker-build-rs", "ran"); }\n`,
      "src/lib.rs": "pub fn greet() -> i32 {\n    1\n}\n\npub fn user() -> i32 {\n    greet()\n}\n",
      // A toolchain of its own, and programs PATH might reach.
      "toolchain/bin/cargo": evilScript("toolchain-cargo"),
      "toolchain/bin/rustc": evilScript("toolchain-rustc"),
      "bin/cargo": evilScript("path-cargo"),
      "bin/rustc": evilScript("path-rustc"),
      "bin/rust-analyzer": evilScript("path-rust-analyzer"),
      "bin/wrapper": evilScript("rustc-wrapper"),
      "bin/check": evilScript("check-command"),
    });
    const root = repo.root;
    await Deno.writeTextFile(
      join(root, "rust-toolchain.toml"),
      `[toolchain]\npath = "${root}/toolchain"\n`,
    );
    await Deno.mkdir(join(root, ".cargo"));
    await Deno.writeTextFile(
      join(root, ".cargo", "config.toml"),
      `[build]\nrustc = "${root}/bin/rustc"\nrustc-wrapper = "${root}/bin/wrapper"\n` +
        `rustc-workspace-wrapper = "${root}/bin/wrapper"\n`,
    );
    // rust-analyzer's own project config: asks for build scripts, proc macros and a check command.
    await Deno.writeTextFile(
      join(root, "rust-analyzer.toml"),
      `[cargo.buildScripts]\nenable = true\n\n[procMacro]\nenable = true\n\n` +
        `[check]\noverrideCommand = ["${root}/bin/check"]\n\n[checkOnSave]\nenable = true\n`,
    );
    try {
      const lib = await Deno.readTextFile(join(root, "src/lib.rs"));
      const { lines, stdout, stderr } = await runLspgate(root, [
        { id: 1, action: "definition", file: "src/lib.rs", ...locate(lib, "greet()\n") },
        { id: 2, action: "diagnostics", file: "src/lib.rs" },
        { id: 3, action: "status" },
      ], { flags: ["--sandbox", sandbox], path: pathWith(join(root, "bin")) });
      assert.deepEqual(await markers(repo.outside), []);
      assert.ok(!stdout.includes(SECRET) && !stderr.includes(SECRET), "the secret leaked");
      // And the user's rust-analyzer, with the user's cargo and toolchain, answered.
      const definition = ok(lines[0]);
      assert.deepEqual(
        (definition.locations as { file: string; line: number; column: number }[])
          .map(({ file, line, column }) => ({ file, line, column })),
        [{ file: "src/lib.rs", line: 1, column: 8 }],
      );
      ok(lines[1]);
      const servers = ok(lines[2]).servers as { server: string; command?: string[] }[];
      const analyzer = servers.find((s) => s.server === "rust-analyzer");
      assert.ok(analyzer, JSON.stringify(servers));
      assert.ok(!analyzer.command?.some((part) => part.startsWith(root)), analyzer.command?.[0]);
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

Deno.test("hostile Go repo: its go on PATH, a toolchain line and a go.work run nothing; the user's gopls answers", async () => {
  const repo = await hostileRepo({
    // A toolchain line that, without GOTOOLCHAIN=local, makes go fetch and run another Go.
    "go.mod": "module example.com/evil\n\ngo 1.22\n\ntoolchain go1.99.1\n",
    "go.work": "go 1.22\n\ntoolchain go1.99.1\n\nuse .\n",
    "util/util.go": "package util\n\nfunc Greet() int {\n\treturn 1\n}\n",
    "main.go":
      'package main\n\nimport "example.com/evil/util"\n\nfunc main() {\n\t_ = util.Greet()\n}\n',
    "bin/go": evilScript("path-go"),
    "bin/gopls": evilScript("path-gopls"),
  });
  try {
    const main = await Deno.readTextFile(join(repo.root, "main.go"));
    const { lines, stdout, stderr } = await runLspgate(repo.root, [
      { id: 1, action: "definition", file: "main.go", ...locate(main, "Greet()") },
      { id: 2, action: "status" },
    ], { path: pathWith(join(repo.root, "bin")) });
    assert.deepEqual(await markers(repo.outside), []);
    assert.ok(!stdout.includes(SECRET) && !stderr.includes(SECRET), "the secret leaked");
    assert.deepEqual(
      (ok(lines[0]).locations as { file: string; line: number; column: number }[])
        .map(({ file, line, column }) => ({ file, line, column })),
      [{ file: "util/util.go", line: 3, column: 6 }],
    );
    const servers = ok(lines[1]).servers as { server: string; command?: string[] }[];
    const gopls = servers.find((s) => s.server === "gopls");
    assert.ok(gopls && !gopls.command?.[0].startsWith(repo.root), JSON.stringify(servers));
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("a trusted root's own server that fails to start: the failure is said, its stderr is not", async () => {
  const repo = await hostileRepo({
    "package.json": `{"name": "trusted", "private": true}\n`,
    "tsconfig.json": `{"compilerOptions": {"strict": true}}\n`,
    "src/util.ts": tsFiles["src/util.ts"],
    "src/main.ts": tsFiles["src/main.ts"],
    // Prints a secret on both streams and exits at once.
    "node_modules/.bin/typescript-language-server": evilScript("trusted-failing"),
  });
  await Deno.symlink(
    (await userTypescriptServer()).typescript,
    join(repo.root, "node_modules/typescript"),
  );
  try {
    const main = await Deno.readTextFile(join(repo.root, "src/main.ts"));
    const { lines, stdout, stderr } = await runLspgate(repo.root, [
      { id: 1, action: "definition", file: "src/main.ts", ...locate(main, "greet(") },
      { id: 2, action: "status" },
    ], { flags: ["--trust", "--sandbox", "bwrap"] });
    const failed = lines[0] as { ok: boolean; error?: { code: string; message: string } };
    assert.equal(failed.ok, false, JSON.stringify(failed));
    assert.match(failed.error!.code, /^SERVER_(START_FAILED|EXITED)$/);
    assert.ok(!stdout.includes(SECRET), "the project's server's output reached an answer");
    assert.ok(!stderr.includes(SECRET), "the project's server's output reached lspgate's stderr");
    // Sandboxed, it could not leave its mark outside either.
    assert.deepEqual(await markers(repo.outside), []);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});
