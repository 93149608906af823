// What the conformance rows of bash, CSS, JSON and the rest cannot say in one-line spots: a
// cross-file definition whose range is the whole function, a server's own column quirk, the
// workspace-wide sweep leaving configuration data out, and `servers` listing every adapter.
import assert from "node:assert/strict";
import { harness, locationsOf, textOf } from "../helpers/session.ts";

Deno.test("bash: the first request from a cold start jumps into the sourced file", async () => {
  const h = await harness("bash");
  try {
    const call = await h.ws.within("main.sh", 'greet "$msg"', "greet");
    const answer = await h.ok({
      action: "definition",
      file: "main.sh",
      line: call.line,
      column: call.column,
    });
    // bash-language-server gives the whole function as the definition's range.
    const start = await h.ws.locate("lib/greet.sh", "greet() {");
    const end = await h.ws.locate("lib/greet.sh", "}\n\nshout");
    assert.deepEqual(locationsOf(answer), [{
      file: "lib/greet.sh",
      ...start,
      endLine: end.line,
      endColumn: end.column + 1,
    }]);
    assert.notEqual(answer.details.partial, true);
  } finally {
    await h.close();
  }
});

Deno.test("bash: ShellCheck's column after an emoji is converted from code points", async () => {
  const h = await harness("bash");
  try {
    const answer = await h.ok({ action: "diagnostics", file: "main.sh" });
    const [file] = answer.details.files as { diagnostics: Record<string, unknown>[] }[];
    // bash-language-server passes ShellCheck's code-point columns on as if they were UTF-16.
    const { file: _file, ...unused } = await h.ws.at("main.sh", "unused");
    assert.deepEqual(file.diagnostics, [{
      ...unused,
      severity: "warning",
      message: "unused appears unused. Verify use (or export if used externally).",
      source: "shellcheck",
      code: "SC2034",
    }]);
  } finally {
    await h.close();
  }
});

Deno.test("css: a definition asked after CJK and an emoji lands on the custom property", async () => {
  const h = await harness("css");
  try {
    const use = await h.ws.within("style.css", '"名前 😀"; border-color: var(--brand)', "--brand");
    const answer = await h.ok({
      action: "definition",
      file: "style.css",
      line: use.line,
      column: use.column,
    });
    assert.deepEqual(locationsOf(answer), [
      await h.ws.within("style.css", "--brand: #", "--brand"),
    ]);
  } finally {
    await h.close();
  }
});

Deno.test('diagnostics "*" sweeps code, not configuration data; a glob names JSON', async () => {
  const h = await harness("json");
  try {
    await h.ws.write("build.sh", "#!/usr/bin/env bash\necho hello\n");
    const sweep = await h.ok({ action: "diagnostics", file: "*" });
    const files = (sweep.details.files as { file: string }[]).map((f) => f.file);
    assert.deepEqual(files, ["build.sh"]);
    const glob = await h.ok({ action: "diagnostics", file: "**/*.json" });
    assert.deepEqual(
      (glob.details.files as { file: string; status: string }[]).map((f) => [f.file, f.status]),
      [["config.json", "ok"], ["schema/config.schema.json", "ok"]],
    );
  } finally {
    await h.close();
  }
});

Deno.test("servers lists every adapter: found or not, tested or not, how to install it", async () => {
  const h = await harness("bash");
  try {
    const answer = await h.ok({ action: "servers" });
    const adapters = answer.details.adapters as {
      id: string;
      installed: boolean;
      tested: boolean;
      installHint: string;
      kind: string;
    }[];
    const byId = new Map(adapters.map((a) => [a.id, a]));
    for (const id of ["bash", "json", "css", "html", "yaml", "dockerfile", "pyright", "ruff"]) {
      assert.deepEqual([id, byId.get(id)?.installed, byId.get(id)?.tested], [id, true, true]);
    }
    assert.equal(byId.get("ruff")?.kind, "linter");
    const untested = ["jdtls", "kotlin", "sourcekit", "dart", "zls", "lua", "ruby-lsp"];
    for (const id of untested) assert.equal(byId.get(id)?.tested, false, id);
    const jdtls = byId.get("jdtls")!;
    if (!jdtls.installed) {
      assert.match(
        textOf(answer),
        /\n {2}jdtls \(\.java\): NOT installed, untested — Install Eclipse JDT Language Server/,
      );
    }
  } finally {
    await h.close();
  }
});
