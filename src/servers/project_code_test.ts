import assert from "node:assert/strict";
import { join } from "node:path";
import { ADAPTERS } from "../../adapters/mod.ts";
import { LspGateError } from "../errors.ts";

/** Each server that runs a project's build files, and one such file. */
const CASES: [string, string][] = [
  ["elixir", "mix.exs"],
  ["ruby-lsp", "Gemfile"],
  ["kotlin", "build.gradle.kts"],
  ["zls", "build.zig"],
  ["sourcekit", "Package.swift"],
  ["haskell", "demo.cabal"],
  ["csharp", "Demo.csproj"],
  ["terraform", ".terraform"],
];

for (const [id, file] of CASES) {
  Deno.test(`${id} does not start for an untrusted root holding ${file}, and says why; a trusted root looks for the server`, async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_project_code_" }));
    try {
      if (file === ".terraform") await Deno.mkdir(join(root, file));
      else await Deno.writeTextFile(join(root, file), "");
      const adapter = ADAPTERS.find((a) => a.id === id)!;
      const context = { root, workspace: root, trusted: false };
      const refused = await adapter.resolve(context).then(() => undefined, (e) => e);
      assert.ok(refused instanceof LspGateError, String(refused));
      assert.equal(refused.code, "SERVER_START_FAILED");
      assert.match(refused.message, new RegExp(`${file.replace(".", "\\.")}: repository code`));
      // Trusted: the same root gets as far as finding the program (not installed here, or found).
      const trusted = await adapter.resolve({ ...context, trusted: true }).then(
        () => "found",
        (e) => (e as LspGateError).code,
      );
      assert.ok(trusted === "found" || trusted === "SERVER_NOT_INSTALLED", trusted);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
}

Deno.test("lua does not start for an untrusted root whose .luarc.json names a plugin; one that names none is served", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_project_code_" }));
  try {
    const adapter = ADAPTERS.find((a) => a.id === "lua")!;
    const context = { root, workspace: root, trusted: false };
    await Deno.writeTextFile(join(root, ".luarc.json"), '{ "runtime.plugin": "plugin.lua" }');
    const refused = await adapter.resolve(context).then(() => undefined, (e) => e);
    assert.ok(refused instanceof LspGateError, String(refused));
    assert.equal(refused.code, "SERVER_START_FAILED");
    assert.match(refused.message, /\.luarc\.json: repository code/);
    await Deno.writeTextFile(join(root, ".luarc.json"), '{ "diagnostics.globals": ["vim"] }');
    const served = await adapter.resolve(context).then(
      () => "found",
      (e) => (e as LspGateError).code,
    );
    assert.ok(served === "found" || served === "SERVER_NOT_INSTALLED", served);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("jdtls for an untrusted root is told not to import Gradle or Maven builds", async () => {
  const adapter = ADAPTERS.find((a) => a.id === "jdtls")!;
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_project_code_" }));
  const bin = join(root, "bin");
  const path = Deno.env.get("PATH") ?? "";
  try {
    // A stand-in program named jdtls on PATH: only how lspgate would start it is looked at.
    await Deno.mkdir(bin);
    await Deno.writeTextFile(join(bin, "jdtls"), "#!/bin/sh\nexit 0\n");
    await Deno.chmod(join(bin, "jdtls"), 0o755);
    Deno.env.set("PATH", `${bin}:${path}`);
    const ws = join(root, "ws");
    await Deno.mkdir(ws);
    const command = await adapter.resolve({ root: ws, workspace: ws, trusted: false });
    const java = (command.settings as { java: { import: Record<string, { enabled: boolean }> } })
      .java;
    assert.equal(java.import.gradle.enabled, false);
    assert.equal(java.import.maven.enabled, false);
    const trusted = await adapter.resolve({ root: ws, workspace: ws, trusted: true });
    assert.equal(trusted.settings, undefined);
  } finally {
    Deno.env.set("PATH", path);
    await Deno.remove(root, { recursive: true });
  }
});
