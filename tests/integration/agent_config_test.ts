// Other agents' server configs plug in unchanged: Claude Code's .lsp.json and Copilot CLI's
// lsp-config.json given to --config, and a Claude Code plugin installed under ~/.claude, each
// declaring a real server (pyright, basedpyright) under an id of its own, which
// then answers; a workspace's own .lsp.json is never read. lspgate runs as `deno task start` runs
// it (the start task's grant, not -A).
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "../helpers/program.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

type Answer = { id: number; ok: boolean; details: Record<string, unknown>; error?: unknown };

/** lspgate as `deno task start` runs it (the task's line, its variables expanded by the shell). */
async function ask(
  args: string[],
  requests: Record<string, unknown>[],
  env: Record<string, string> = {},
): Promise<Map<number, Answer>> {
  const { tasks } = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  assert.match(tasks.start, /^deno run .* mod\.ts$/);
  const child = new Deno.Command("sh", {
    args: ["-c", `exec ${tasks.start} "$@"`, "sh", "--sandbox", "none", ...args],
    cwd: REPO_ROOT,
    env: {
      NO_COLOR: "1",
      LSPGATE_NO_DAEMON: "1",
      PATH: `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`,
      ...env,
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(requests.map((r) => JSON.stringify(r)).join("\n")));
  await writer.close();
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n").filter(Boolean);
  return new Map(lines.map((line) => JSON.parse(line)).map((a: Answer) => [a.id, a]));
}

function serverOf(answer: Answer | undefined): unknown {
  assert.equal(answer?.ok, true, JSON.stringify(answer));
  return answer!.details.server;
}

Deno.test("--config with Claude Code's .lsp.json: its pyright, under its own id, answers", async () => {
  const ws = await TempWorkspace.copy("python");
  const dir = await Deno.makeTempDir({ prefix: "lspgate_claude_lsp_" });
  try {
    const file = join(dir, ".lsp.json");
    // As a Claude Code plugin's .lsp.json is written (code.claude.com/docs/en/plugins-reference).
    await Deno.writeTextFile(
      file,
      JSON.stringify({
        "my-python": {
          command: "pyright-langserver",
          args: ["--stdio"],
          extensionToLanguage: { ".py": "python", ".pyi": "python" },
          settings: { python: { analysis: { typeCheckingMode: "basic" } } },
          startupTimeout: 60000,
          restartOnCrash: true,
        },
      }),
    );
    const use = await ws.locate("main.py", "greet(名前)");
    const answers = await ask(["--root", ws.root, "--config", file], [
      { id: 1, action: "definition", file: "main.py", line: use.line, column: use.column },
      { id: 2, action: "capabilities", file: "main.py" },
    ]);
    const definition = answers.get(1);
    assert.equal(definition?.ok, true, JSON.stringify(definition));
    assert.deepEqual(definition!.details.locations, [
      await ws.within("zoo/greeting.py", "def greet(name", "greet"),
    ]);
    assert.equal(serverOf(answers.get(2)), "my-python");
  } finally {
    await ws.remove();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--config with Copilot CLI's lsp-config.json: its basedpyright answers", async () => {
  const ws = await TempWorkspace.copy("python");
  const dir = await Deno.makeTempDir({ prefix: "lspgate_copilot_lsp_" });
  try {
    const file = join(dir, "lsp-config.json");
    // As Copilot CLI's ~/.copilot/lsp-config.json is written (docs.github.com, "Adding LSP
    // servers for Copilot CLI").
    await Deno.writeTextFile(
      file,
      JSON.stringify({
        lspServers: {
          "copilot-python": {
            command: "basedpyright-langserver",
            args: ["--stdio"],
            fileExtensions: { ".py": "python" },
          },
        },
      }),
    );
    const use = await ws.locate("main.py", "greet(名前)");
    const answers = await ask(["--root", ws.root, "--config", file], [
      { id: 1, action: "definition", file: "main.py", line: use.line, column: use.column },
      { id: 2, action: "capabilities", file: "main.py" },
    ]);
    const definition = answers.get(1);
    assert.equal(definition?.ok, true, JSON.stringify(definition));
    assert.deepEqual(definition!.details.locations, [
      await ws.within("zoo/greeting.py", "def greet(name", "greet"),
    ]);
    assert.equal(serverOf(answers.get(2)), "copilot-python");
  } finally {
    await ws.remove();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a Claude Code plugin installed under ~/.claude adds its server; a workspace's .lsp.json is never read", async () => {
  const ws = await TempWorkspace.copy("python");
  const home = await Deno.makeTempDir({ prefix: "lspgate_claude_home_" });
  try {
    // A plugin as Claude Code installs one: its folder in the plugin cache, listed in
    // installed_plugins.json, its servers in plugin.json's lspServers (a file beside it).
    const plugin = join(home, ".claude", "plugins", "cache", "market", "pyls", "1.0.0");
    await Deno.mkdir(join(plugin, ".claude-plugin"), { recursive: true });
    await Deno.writeTextFile(
      join(plugin, ".claude-plugin", "plugin.json"),
      JSON.stringify({ name: "pyls", lspServers: "./servers.lsp.json" }),
    );
    await Deno.writeTextFile(
      join(plugin, "servers.lsp.json"),
      JSON.stringify({
        "plugin-python": {
          command: "pyright-langserver",
          args: ["--stdio"],
          extensionToLanguage: { ".pyw": "python" },
        },
      }),
    );
    await Deno.writeTextFile(
      join(home, ".claude", "plugins", "installed_plugins.json"),
      JSON.stringify({
        version: 2,
        plugins: { "pyls@market": [{ scope: "user", installPath: plugin, version: "1.0.0" }] },
      }),
    );
    // What a hostile repository might ship: a server for its own .py files.
    await ws.write(
      ".lsp.json",
      JSON.stringify({
        "repo-python": { command: "/bin/sh", extensionToLanguage: { ".py": "python" } },
      }),
    );
    await ws.write("tool.pyw", await ws.read("main.py"));
    const use = await ws.locate("tool.pyw", "greet(名前)");
    const answers = await ask(["--root", ws.root], [
      { id: 1, action: "definition", file: "tool.pyw", line: use.line, column: use.column },
      { id: 2, action: "capabilities", file: "tool.pyw" },
      { id: 3, action: "capabilities", file: "main.py" },
      { id: 4, action: "servers" },
    ], { HOME: home, XDG_CONFIG_HOME: join(home, ".config") });
    const definition = answers.get(1);
    assert.equal(definition?.ok, true, JSON.stringify(definition));
    assert.deepEqual(definition!.details.locations, [
      await ws.within("zoo/greeting.py", "def greet(name", "greet"),
    ]);
    assert.equal(serverOf(answers.get(2)), "plugin-python");
    // Not preferred over the shipped adapter for .py; the repository's own server is unknown.
    assert.equal(serverOf(answers.get(3)), "pyright");
    const ids = (answers.get(4)!.details.adapters as { id: string }[]).map((a) => a.id);
    assert.ok(ids.includes("plugin-python"), ids.join(" "));
    assert.ok(!ids.includes("repo-python"), ids.join(" "));
  } finally {
    await ws.remove();
    await Deno.remove(home, { recursive: true });
  }
});
