// No repository code runs inside a server for a root the user has not trusted (issue 15, item 4):
// code a repository ships that a server would execute — Deno lint plugins, Biome plugins — is
// turned off through the server's own settings, under every sandbox mode. Each case's repository
// code would put a marker into the answer (or leave one outside); it never appears. A trusted
// root (sandboxed) runs it, which shows the marker would be seen.
import assert from "node:assert/strict";
import { join } from "node:path";
import { hostileRepo, markers, ok, pathWith, runLspgate, SECRET } from "./hostile.ts";
import { TOOLS_DIR } from "../tools.ts";
import { pathExists } from "../../src/fs.ts";

/** A Deno lint plugin that reports a marker on every file, and the outside secret if it can read it. */
const DENO_PLUGIN = `let said = "PLUGIN-RAN";
try { said += " " + Deno.readTextFileSync("$OUTSIDE/secret.txt"); } catch { /* sandboxed */ }
const plugin: Deno.lint.Plugin = {
  name: "evil",
  rules: {
    marker: {
      create(context) {
        return { Program(node) { context.report({ node, message: said }); } };
      },
    },
  },
};
export default plugin;
`;

const denoFiles = {
  "deno.json": `{"lint": {"plugins": ["./tools/plugin.ts"]}}\n`,
  "tools/plugin.ts": DENO_PLUGIN,
  "main.ts": "export const answer = 42;\n",
};

async function denoDiagnostics(root: string, flags: string[]) {
  const run = await runLspgate(root, [
    { id: 1, action: "diagnostics", file: "main.ts" },
    { id: 2, action: "status" },
  ], { flags });
  const text = JSON.stringify(run.lines[0]);
  const servers = ok(run.lines[1]).servers as { server: string; note?: string }[];
  return { ...run, text, deno: servers.find((s) => s.server === "deno") };
}

for (const sandbox of ["auto", "none"]) {
  Deno.test(`deno.json lint plugins (sandbox ${sandbox}): the repository's plugin never runs in deno lsp; status says why linting is off`, async () => {
    const repo = await hostileRepo(denoFiles);
    await Deno.writeTextFile(`${repo.outside}/secret.txt`, SECRET);
    try {
      const { lines, text, stdout, stderr, deno } = await denoDiagnostics(repo.root, [
        "--sandbox",
        sandbox,
      ]);
      const files = ok(lines[0]).files as { file: string; status: string }[];
      assert.deepEqual(files.map((f) => [f.file, f.status]), [["main.ts", "ok"]]);
      assert.ok(!text.includes("PLUGIN-RAN"), `the plugin ran: ${text}`);
      assert.ok(!stdout.includes(SECRET) && !stderr.includes(SECRET), "the secret leaked");
      assert.match(deno?.note ?? "", /deno lint off: deno\.json names lint plugins/);
      assert.deepEqual(await markers(repo.outside), ["secret.txt"]);
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

Deno.test("deno.json lint plugins in a trusted root run, sandboxed: the marker shows (the test can see it)", async () => {
  const repo = await hostileRepo(denoFiles);
  await Deno.writeTextFile(`${repo.outside}/secret.txt`, SECRET);
  try {
    const { text, stdout } = await denoDiagnostics(repo.root, ["--trust", "--sandbox", "bwrap"]);
    assert.match(text, /PLUGIN-RAN/);
    // Sandboxed, it still cannot read outside the root.
    assert.ok(!stdout.includes(SECRET), "the secret leaked from a trusted root's plugin");
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

/** A GritQL plugin that reports a marker on every console.log. */
const GRIT_PLUGIN = "language js\n\n`console.log($msg)` where {\n" +
  '  register_diagnostic(span=$msg, message="GRIT-PLUGIN-RAN")\n}\n';

const biomeFiles = {
  "biome.json": `{"plugins": ["./tools/evil.grit"]}\n`,
  "tools/evil.grit": GRIT_PLUGIN,
  "main.js": 'console.log("hi");\n',
};

for (const sandbox of ["auto", "none"]) {
  Deno.test(`biome.json plugins (sandbox ${sandbox}): Biome does not run for an untrusted root, and the diagnostics answer says why`, async () => {
    const repo = await hostileRepo(biomeFiles);
    try {
      const { lines } = await runLspgate(repo.root, [
        { id: 1, action: "diagnostics", file: "main.js" },
      ], { flags: ["--sandbox", sandbox] });
      const text = JSON.stringify(lines[0]);
      assert.ok(!text.includes("GRIT-PLUGIN-RAN"), `the plugin ran: ${text}`);
      const [file] = ok(lines[0]).files as { file: string; status: string; message?: string }[];
      assert.equal(file.file, "main.js");
      assert.match(file.message ?? "", /biome is not started: biome\.json names plugins/);
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

Deno.test("biome.json plugins in a trusted root run, sandboxed: the marker shows (the test can see it)", async () => {
  const repo = await hostileRepo(biomeFiles);
  try {
    const { lines } = await runLspgate(repo.root, [
      { id: 1, action: "diagnostics", file: "main.js" },
    ], { flags: ["--trust", "--sandbox", "bwrap"] });
    assert.match(JSON.stringify(lines[0]), /GRIT-PLUGIN-RAN/);
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

for (const sandbox of ["auto", "none"]) {
  Deno.test(`a YAML file naming its schema by URL (sandbox ${sandbox}): yaml-language-server fetches nothing, and says it could not load the schema`, async () => {
    const hits: string[] = [];
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      (request) => {
        hits.push(request.url);
        return new Response('{"type": "object", "properties": {"name": {"type": "number"}}}');
      },
    );
    const url = `http://127.0.0.1:${server.addr.port}/schema.json`;
    const repo = await hostileRepo({
      "config.yaml": `# yaml-language-server: $schema=${url}\nname: hello\n`,
    });
    try {
      const { lines } = await runLspgate(repo.root, [
        { id: 1, action: "diagnostics", file: "config.yaml" },
      ], { flags: ["--sandbox", sandbox] });
      const text = JSON.stringify(lines[0]);
      assert.deepEqual(hits, [], "the schema was fetched");
      assert.match(text, /Unable to load schema from/);
      assert.ok(!text.includes("Incorrect type"), text);
    } finally {
      await server.shutdown();
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

/** svelte-language-server, installed once into lspgate's test tools folder. */
async function svelteServerBin(): Promise<string> {
  const folder = join(TOOLS_DIR, "svelte");
  const bin = join(folder, "node_modules", ".bin");
  if (!(await pathExists(join(bin, "svelteserver")))) {
    await Deno.mkdir(folder, { recursive: true });
    const out = await new Deno.Command("npm", {
      args: [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefix",
        folder,
        "svelte-language-server@0.17.31",
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  }
  return bin;
}

for (const sandbox of ["auto", "none"]) {
  Deno.test(`svelte.config.js (sandbox ${sandbox}): svelte-language-server does not run it for an untrusted root, and says why`, async () => {
    const bin = await svelteServerBin();
    const repo = await hostileRepo({
      "package.json": `{"name": "sv", "private": true, "type": "module"}\n`,
      "svelte.config.js": `import fs from "node:fs";\n` +
        `fs.writeFileSync("$OUTSIDE/marker-svelte-config", "ran");\nexport default {};\n`,
      "src/App.svelte": '<script>\n  let name = "x";\n</script>\n\n<h1>{name}</h1>\n',
    });
    try {
      const { lines } = await runLspgate(repo.root, [
        { id: 1, action: "diagnostics", file: "src/App.svelte" },
      ], { flags: ["--sandbox", sandbox], path: pathWith(bin) });
      const failed = lines[0] as { ok: boolean; error?: { code: string; message: string } };
      assert.equal(failed.ok, false, JSON.stringify(failed));
      assert.equal(failed.error?.code, "SERVER_START_FAILED");
      assert.match(failed.error?.message ?? "", /would run svelte\.config\.js/);
      assert.deepEqual(await markers(repo.outside), []);
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}
