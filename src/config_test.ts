import assert from "node:assert/strict";
import {
  defaultConfig,
  loadConfig,
  loadUserConfig,
  parseConfig,
  parseWorkspaceConfig,
  withWorkspaceConfig,
} from "./config.ts";

Deno.test("loadConfig() reads JSONC with comments and trailing commas, defaults the rest", async () => {
  const file = await Deno.makeTempFile({ suffix: ".jsonc" });
  try {
    await Deno.writeTextFile(
      file,
      `{\n // sandbox the servers\n "sandbox": "bwrap",\n "servers": {"deno": {"disabled": true}},\n}`,
    );
    const config = await loadConfig(file);
    assert.equal(config.sandbox, "bwrap");
    assert.equal(config.servers.deno.disabled, true);
    assert.equal(config.timeoutMs, defaultConfig().timeoutMs);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("loadConfig() names the file and the key for a wrong value or an unknown key", async () => {
  const file = await Deno.makeTempFile({ suffix: ".jsonc" });
  try {
    await Deno.writeTextFile(file, `{"timeoutMs": "soon", "colour": 1}`);
    await assert.rejects(loadConfig(file), (error: Error & { code?: string }) => {
      assert.equal(error.code, "INVALID_INPUT");
      assert.match(error.message, /timeoutMs/);
      assert.match(error.message, /colour/);
      return true;
    });
  } finally {
    await Deno.remove(file);
  }
});

const KNOWN = ["pyright", "basedpyright", "typescript", "bash", "yaml", "json", "css"];

/** The message of the INVALID_INPUT error parseConfig() throws for `text`. */
function problem(
  text: string,
  parse: (text: string) => unknown = (t) =>
    parseConfig(t, "/home/me/.config/lspgate/config.jsonc", { knownServers: KNOWN }),
): string {
  try {
    parse(text);
  } catch (error) {
    assert.equal((error as { code?: string }).code, "INVALID_INPUT");
    return (error as Error).message;
  }
  assert.fail("expected the config to be refused");
}

Deno.test("parseConfig() names file:line and the key of a typo'd server id, with the nearest id", () => {
  const text = `{
  // mine
  "servers": {
    "pyrigth": { "settings": {} }
  }
}`;
  assert.equal(
    problem(text),
    "config /home/me/.config/lspgate/config.jsonc:4: servers.pyrigth: unknown server; did you " +
      'mean "pyright"? A new server needs "command" and "extensions" (or "filenames"). ' +
      "Known: pyright, basedpyright, typescript, bash, yaml, json, css.",
  );
});

Deno.test("parseConfig() names the line of an unknown key inside a server entry", () => {
  const text = `{
  "servers": {
    "pyright": {
      "settings": {},
      "comand": ["pyright-langserver", "--stdio"]
    }
  }
}`;
  assert.equal(
    problem(text),
    "config /home/me/.config/lspgate/config.jsonc:5: servers.pyright.comand: unknown key",
  );
});

Deno.test("parseConfig() names the line of a value of the wrong type", () => {
  const text = `{
  "timeoutMs": 5000,
  "servers": {
    "nix": {
      "command": ["nil"],
      "extensions": [".nix"],
      "kind": "formatter"
    }
  }
}`;
  assert.match(
    problem(text),
    /^config \/home\/me\/\.config\/lspgate\/config\.jsonc:7: servers\.nix\.kind: Invalid option: expected one of "language"\|"linter"$/,
  );
});

Deno.test("parseConfig() lists every problem, each with its line, in line order", () => {
  const text = `{
  "timeoutMs": "soon",
  "colour": 1
}`;
  assert.equal(
    problem(text),
    "config has 2 problems:\n" +
      "/home/me/.config/lspgate/config.jsonc:2: timeoutMs: Invalid input: expected number, " +
      "received string\n" +
      "/home/me/.config/lspgate/config.jsonc:3: colour: unknown key",
  );
});

Deno.test("parseConfig() refuses a relative command and a syntax error, by line", () => {
  assert.equal(
    problem(`{"servers": {"x": {"command": ["./bin/x"], "extensions": [".x"]}}}`),
    "config /home/me/.config/lspgate/config.jsonc:1: servers.x.command.0: must be an absolute " +
      "path or a program name looked up on PATH (a relative path would be resolved inside the " +
      "workspace)",
  );
  assert.equal(
    problem(`{\n  "timeoutMs": 5000\n  "sandbox": "none"\n}`),
    "config /home/me/.config/lspgate/config.jsonc:3:3: CommaExpected",
  );
});

Deno.test("parseConfig() accepts a new server with command and extensions, and overrides by id", () => {
  const config = parseConfig(
    `{"servers": {
      "nix": {"command": ["nil"], "extensions": [".nix"], "rootMarkers": ["flake.nix"]},
      "basedpyright": {"preferred": true},
    }}`,
    "config.jsonc",
    { knownServers: KNOWN },
  );
  assert.deepEqual(config.servers.nix.command, ["nil"]);
  assert.equal(config.servers.basedpyright.preferred, true);
});

const parseWorkspace = (text: string) => parseWorkspaceConfig(text, "/repo/.lspgate.jsonc", KNOWN);

Deno.test("parseWorkspaceConfig() refuses what decides what runs, naming file:line:key", () => {
  const text = `{
  "timeoutMs": 60000,
  "servers": {
    "pyright": {
      "settings": { "python": { "analysis": { "typeCheckingMode": "strict" } } },
      "command": ["/tmp/evil"]
    }
  },
  "sandbox": "none"
}`;
  const only = "only your own config may set it (--config, or ~/.config/lspgate/config.jsonc): " +
    "a repository does not choose what runs";
  assert.equal(
    problem(text, parseWorkspace),
    "config has 2 problems:\n" +
      `/repo/.lspgate.jsonc:6: servers.pyright.command: not allowed in a workspace config; ${only}\n` +
      `/repo/.lspgate.jsonc:9: sandbox: not allowed in a workspace config; ${only}`,
  );
});

Deno.test("parseWorkspaceConfig() refuses settings that name a program or a path", () => {
  const text = `{
  "servers": {
    "pyright": {
      "settings": {
        "python": { "pythonPath": "./venv/bin/python" }
      }
    },
    "bash": { "settings": { "bashIde": { "shellcheckPath": "./sc" } } }
  }
}`;
  const message = problem(text, parseWorkspace);
  assert.match(message, /^config has 2 problems:\n/);
  assert.match(
    message,
    /\/repo\/\.lspgate\.jsonc:5: servers\.pyright\.settings\.python\.pythonPath: names a program or a path/,
  );
  assert.match(
    message,
    /\/repo\/\.lspgate\.jsonc:8: servers\.bash\.settings\.bashIde\.shellcheckPath: names a program or a path/,
  );
});

Deno.test("parseWorkspaceConfig() refuses settings that set what the programs a server runs get: environment, flags", () => {
  // Each of these, set by a repository, ran a program of its choosing: gopls's `go list` runs CC
  // for a cgo file (found by a helper: `"CC": "sh -c 'id > …'"` wrote its file unsandboxed).
  const settings = {
    gopls: { env: { CC: "sh -c id" }, buildFlags: ["-toolexec=./x"] },
    "rust-analyzer": {
      cargo: { extraEnv: { RUSTC_WRAPPER: "./x" } },
      procMacro: { server: "x" },
      server: { extraEnv: {} },
    },
    clangd: { fallbackFlags: ["-fplugin=x.so"] },
    typescript: { npmLocation: "x" },
    eslint: { execArgv: ["--require", "x"] },
    python: { analysis: { environment: "x" } },
  };
  const message = problem(
    JSON.stringify({ servers: { pyright: { settings } } }, null, 1),
    parseWorkspace,
  );
  for (
    const key of [
      "gopls.env",
      "gopls.buildFlags",
      "rust-analyzer.cargo.extraEnv",
      "rust-analyzer.procMacro.server",
      "rust-analyzer.server",
      "clangd.fallbackFlags",
      "typescript.npmLocation",
      "eslint.execArgv",
      "python.analysis.environment",
    ]
  ) {
    const at = `servers\\.pyright\\.settings\\.${key.replaceAll(".", "\\.")}`;
    assert.match(message, new RegExp(`: ${at}: names a program or a path`), key);
  }
  assert.match(message, /^config has 9 problems:/);
});

Deno.test("parseWorkspaceConfig() keeps settings and timeouts; the user's shorter ones give way", () => {
  const workspace = parseWorkspace(`{
    "readyTimeoutMs": 60000,
    "timeoutMs": 1000,
    "servers": {"pyright": {"settings": {"python": {"analysis": {"typeCheckingMode": "strict"}}}}}
  }`);
  // (JSON objects come without a prototype: a "__proto__" key is just a key.)
  assert.deepEqual(JSON.parse(JSON.stringify(workspace.servers.pyright.settings)), {
    python: { analysis: { typeCheckingMode: "strict" } },
  });
  const merged = withWorkspaceConfig(defaultConfig(), workspace);
  assert.equal(merged.readyTimeoutMs, 60000);
  assert.equal(merged.timeoutMs, defaultConfig().timeoutMs);
  assert.equal(
    problem(`{"servers": {"pyrite": {"settings": {}}}}`, parseWorkspace),
    'config /repo/.lspgate.jsonc:1: servers.pyrite: unknown server; did you mean "pyright"? ' +
      "Known: pyright, basedpyright, typescript, bash, yaml, json, css.",
  );
});

Deno.test("loadUserConfig() reads $XDG_CONFIG_HOME/lspgate/config.jsonc when no file is given", async () => {
  const home = await Deno.makeTempDir();
  const before = Deno.env.get("XDG_CONFIG_HOME");
  try {
    await Deno.mkdir(`${home}/lspgate`);
    await Deno.writeTextFile(`${home}/lspgate/config.jsonc`, `{"idleShutdownMs": 1234}`);
    Deno.env.set("XDG_CONFIG_HOME", home);
    assert.equal((await loadUserConfig(undefined)).idleShutdownMs, 1234);
    await Deno.remove(`${home}/lspgate/config.jsonc`);
    assert.equal((await loadUserConfig(undefined)).idleShutdownMs, 0);
  } finally {
    if (before === undefined) Deno.env.delete("XDG_CONFIG_HOME");
    else Deno.env.set("XDG_CONFIG_HOME", before);
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("parseWorkspaceConfig() refuses schema URLs and paths outside the project in settings", () => {
  const message = problem(
    `{"servers": {
  "yaml": {"settings": {"yaml": {"schemas": {"file:///etc/app.json": "*.yaml"}}}},
  "json": {"settings": {"json": {"schemas": [{"fileMatch": ["*.json"], "url": "x.json"}]}}},
  "css": {"settings": {"css": {"customData": ["../../shared/data.json"]}}}
}}`,
    parseWorkspace,
  );
  assert.match(message, /:2: servers\.yaml\.settings\.yaml\.schemas\.file:\/\/\/etc\/app\.json: /);
  assert.match(message, /:3: servers\.json\.settings\.json\.schemas\.0\.url: /);
  assert.match(
    message,
    /:4: servers\.css\.settings\.css\.customData\.0: names a program or a path/,
  );
});

Deno.test("servers.<id>.memoryCapMiB: a whole number of at least 64 MiB, from the user's config only", () => {
  const config = parseConfig(
    `{"servers": {"pyright": {"memoryCapMiB": 2048}}}`,
    "config.jsonc",
    { knownServers: KNOWN },
  );
  assert.equal(config.servers.pyright.memoryCapMiB, 2048);
  assert.match(
    problem(`{"servers": {"pyright": {"memoryCapMiB": 16}}}`),
    /:1: servers\.pyright\.memoryCapMiB: Too small: expected number to be >=64$/,
  );
  // A repository lowering it would stop the user's server: only the user's config may set it.
  assert.match(
    problem(`{"servers": {"pyright": {"memoryCapMiB": 2048}}}`, parseWorkspace),
    /servers\.pyright\.memoryCapMiB: not allowed in a workspace config/,
  );
});

Deno.test("parseWorkspaceConfig() refuses a path that climbs out anywhere, not only at its start", () => {
  const message = problem(
    `{"servers": {
  "yaml": {"settings": {"yaml": {"config": "./../outside/deno.json"}}},
  "css": {"settings": {"css": {"customData": ["sub/../../x.json", "sub\\\\..\\\\..\\\\y.json"]}}},
  "json": {"settings": {"json": {"format": {"enable": true}, "note": "a..b"}}}
}}`,
    parseWorkspace,
  );
  assert.match(message, /:2: servers\.yaml\.settings\.yaml\.config: names a program or a path/);
  assert.match(message, /:3: servers\.css\.settings\.css\.customData\.0: /);
  assert.match(message, /:3: servers\.css\.settings\.css\.customData\.1: /);
  assert.doesNotMatch(message, /note/);
});
