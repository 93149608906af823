// The repository code of repo_code_test, reached the ways a helper found past the checks: a
// config that is a link, one in a folder lspgate's other walks skip (`.cache/`), one a workspace
// config names (`deno.config`), a Biome config's `extends`; and the network a YAML or JSON schema
// URL would reach, turned back on by a workspace's `.lspgate.jsonc` or raced at start. Run as the
// README runs lspgate (`deno task start`), with `--sandbox none`: there nothing else would stop
// the plugin reading outside the root.
import assert from "node:assert/strict";
import { hostileRepo, SECRET } from "./hostile.ts";
import { startTask } from "../helpers/program.ts";

/** A Deno lint plugin that reports a marker, and the outside secret if it can read it. */
const DENO_PLUGIN = `let said = "PLUGIN-RAN";
try { said += " " + Deno.readTextFileSync("$OUTSIDE/secret.txt"); } catch { /* sandboxed */ }
export default { name: "evil", rules: { marker: { create(context) {
  return { Program(node) { context.report({ node, message: said }); } };
} } } };
`;
const NAMES_PLUGIN = `{"lint": {"plugins": ["./plugin.js"]}}\n`;

/** Asks `requests` one after another of lspgate on `root`; the answers and the whole output. */
async function ask(root: string, requests: Record<string, unknown>[], together = false) {
  const program = startTask(["--root", root, "--sandbox", "none"], {
    XDG_RUNTIME_DIR: await Deno.makeTempDir(),
  });
  try {
    const lines = [];
    if (together) {
      await program.send(...requests);
      lines.push(...await program.read(requests.length));
    } else {
      for (const request of requests) lines.push(await program.ask(request));
    }
    const end = await program.finish();
    return { lines, text: JSON.stringify(lines) + end.stderr };
  } catch (error) {
    await program.kill();
    throw error;
  }
}

const denoLayouts: Record<string, { files: Record<string, string>; link?: [string, string] }> = {
  "a deno.json that is a link to a config inside the root": {
    files: {
      "cfg/real.json": NAMES_PLUGIN,
      "cfg/plugin.js": DENO_PLUGIN,
      "plugin.js": DENO_PLUGIN,
    },
    link: ["cfg/real.json", "deno.json"],
  },
  "a deno.json in .cache/, asked about a file beside it": {
    files: {
      "deno.json": "{}\n",
      ".cache/deno.json": NAMES_PLUGIN,
      ".cache/plugin.js": DENO_PLUGIN,
      ".cache/main.ts": "export const answer = 42;\n",
    },
  },
  "a deno.json with single quotes (Deno reads them; JSON does not)": {
    files: {
      "deno.json": "{'lint':{'plu\\u0067ins':['./plugin.js']}}\n",
      "plugin.js": DENO_PLUGIN,
    },
  },
  "a workspace config naming another config (deno.config)": {
    files: {
      "deno.json": "{}\n",
      "lint.cfg.json": NAMES_PLUGIN,
      "plugin.js": DENO_PLUGIN,
      ".lspgate.jsonc": JSON.stringify({
        servers: {
          deno: {
            settings: { deno: { config: "lint.cfg.json" } },
            initializationOptions: { config: "lint.cfg.json" },
          },
        },
      }),
    },
  },
};

for (const [layout, { files, link }] of Object.entries(denoLayouts)) {
  Deno.test(`deno lint plugins through ${layout}: the plugin never runs for an untrusted root`, async () => {
    const file = files[".cache/main.ts"] ? ".cache/main.ts" : "main.ts";
    const repo = await hostileRepo({ "main.ts": "export const answer = 42;\n", ...files });
    await Deno.writeTextFile(`${repo.outside}/secret.txt`, SECRET);
    if (link) await Deno.symlink(link[0], `${repo.root}/${link[1]}`);
    try {
      const { lines, text } = await ask(repo.root, [{ id: 1, action: "diagnostics", file }]);
      if (file === ".cache/main.ts") {
        // In a folder the check at start does not walk: the file itself is not asked of deno lsp.
        const error = lines[0].error as { code: string; message: string };
        assert.equal(error.code, "ACTION_NOT_ALLOWED", text);
        assert.match(
          error.message,
          /^deno is not asked about \.cache\/main\.ts: \.cache\/deno\.json names lint plugins/,
        );
      } else {
        assert.equal(lines[0].ok, true, text);
      }
      assert.ok(!text.includes("PLUGIN-RAN"), `the plugin ran: ${text}`);
      assert.ok(!text.includes(SECRET), "the secret leaked");
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

const GRIT_PLUGIN = "language js\n\n`console.log($msg)` where {\n" +
  '  register_diagnostic(span=$msg, message="GRIT-PLUGIN-RAN")\n}\n';

const biomeLayouts: Record<string, { files: Record<string, string>; link?: [string, string] }> = {
  "a config it extends": {
    files: {
      "base.jsonc": `{ "plugins": ["./rule.grit"] }\n`,
      "biome.json": `{ "extends": ["./base.jsonc"], "linter": { "enabled": true } }\n`,
    },
  },
  "a biome.json that is a link": {
    files: { "cfg/real.json": `{ "plugins": ["./rule.grit"] }\n`, "cfg/rule.grit": GRIT_PLUGIN },
    link: ["cfg/real.json", "biome.json"],
  },
};

for (const [layout, { files, link }] of Object.entries(biomeLayouts)) {
  Deno.test(`biome plugins through ${layout}: Biome does not run for an untrusted root, and says why`, async () => {
    const repo = await hostileRepo({
      "main.js": 'console.log("hi");\n',
      "rule.grit": GRIT_PLUGIN,
      ...files,
    });
    if (link) await Deno.symlink(link[0], `${repo.root}/${link[1]}`);
    try {
      const { lines, text } = await ask(repo.root, [
        { id: 1, action: "diagnostics", file: "main.js" },
      ]);
      assert.ok(!text.includes("GRIT-PLUGIN-RAN"), `the plugin ran: ${text}`);
      const { files: answered } = lines[0].details as { files: { message?: string }[] };
      assert.match(answered[0].message ?? "", /biome is not started: biome\.json names plugins/);
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

Deno.test("a heavy folder past the walk's bound (a Rust target/ beside Cargo.toml) keeps Biome and deno lint on", async () => {
  const repo = await hostileRepo({
    "biome.json": "{}\n",
    "deno.json": "{}\n",
    "src-tauri/Cargo.toml": '[package]\nname = "app"\n',
    "src/a.ts": "let unused = 1;\nexport const b = 2;\n",
  });
  // 51,000 entries: more than the walk looks at (50,000), all in the skipped target/.
  const made = await new Deno.Command("sh", {
    args: [
      "-c",
      'mkdir -p target && cd target && for i in $(seq 300); do mkdir "$i"; ' +
      '(cd "$i" && touch $(seq 169)); done',
    ],
    cwd: `${repo.root}/src-tauri`,
  }).output();
  assert.equal(made.code, 0);
  try {
    const { lines, text } = await ask(repo.root, [
      { id: 1, action: "diagnostics", file: "src/a.ts" },
      { id: 2, action: "status" },
    ]);
    assert.equal(lines[0].ok, true, text);
    // A walk cut short counted as naming plugins: Biome was refused, deno lint turned off.
    assert.doesNotMatch(text, /names plugins|names lint plugins|too many files/);
    assert.match(text, /biome/);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

/** A listener that serves a schema making `a` a number, and the URLs asked of it. */
function schemaServer() {
  const hits: string[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    hits.push(new URL(request.url).pathname);
    return new Response('{"properties": {"a": {"type": "number", "description": "ATTACKER"}}}');
  });
  return { hits, server, url: (name: string) => `http://127.0.0.1:${server.addr.port}/${name}` };
}

Deno.test("YAML and JSON schema URLs: a workspace config turning the proxy off or adding http fetches nothing", async () => {
  const schemas = schemaServer();
  const repo = await hostileRepo({
    "conf.yaml": `# yaml-language-server: $schema=${schemas.url("y.json")}\na: "x"\n`,
    "conf.json": `{"$schema": "${schemas.url("j.json")}", "a": "x"}\n`,
    ".lspgate.jsonc": JSON.stringify({
      servers: {
        yaml: { settings: { http: { proxy: "" }, yaml: { schemaStore: { enable: true } } } },
        json: { initializationOptions: { handledSchemaProtocols: ["file", "http"] } },
      },
    }),
  });
  try {
    const { lines, text } = await ask(repo.root, [
      { id: 1, action: "diagnostics", file: "conf.yaml" },
      { id: 2, action: "diagnostics", file: "conf.json" },
      { id: 3, action: "status" },
    ]);
    assert.deepEqual(schemas.hits, [], "a schema was fetched");
    assert.ok(!text.includes("ATTACKER") && !/Expected "?number/.test(text), text);
    assert.equal(lines[0].ok, true, text);
    assert.equal(lines[1].ok, true, text);
    // The settings that would reach the network are refused, and status says so.
    assert.match(JSON.stringify(lines[2]), /proxy/);
  } finally {
    await schemas.server.shutdown();
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("a YAML schema URL asked about at once, as the server starts, is not fetched (hover and diagnostics together)", async () => {
  const schemas = schemaServer();
  const repo = await hostileRepo({
    "conf.yaml": `# yaml-language-server: $schema=${schemas.url("y.json")}\na: "x"\n`,
  });
  try {
    const { text } = await ask(repo.root, [
      { id: 1, action: "diagnostics", file: "conf.yaml" },
      { id: 2, action: "hover", file: "conf.yaml", line: 2, column: 1 },
    ], true);
    assert.deepEqual(schemas.hits, [], "the schema was fetched");
    assert.ok(!text.includes("ATTACKER"), text);
  } finally {
    await schemas.server.shutdown();
    await Deno.remove(repo.base, { recursive: true });
  }
});
