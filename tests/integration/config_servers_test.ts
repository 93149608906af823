// Servers from config, against real servers: a server added in the user's config with no code
// answers for its files; basedpyright serves Python when the config prefers it; a workspace's
// own .lspgate.jsonc changes a server's settings, and is refused when it names what runs.
import assert from "node:assert/strict";
import { ADAPTERS, Session } from "../../mod.ts";
import { parseConfig } from "../../src/config.ts";
import { expectError, expectOk, locationsOf, textOf } from "../helpers/session.ts";
import { Program } from "../helpers/program.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const KNOWN = { knownServers: ADAPTERS.map((a) => a.id) };

/** A session over `ws` with the user's config given as JSONC text. */
function open(ws: TempWorkspace, userConfig = "{}"): Promise<Session> {
  return Session.open({
    root: ws.root,
    role: "main",
    allowMutations: false,
    adapters: ADAPTERS,
    config: parseConfig(userConfig, "/home/me/.config/lspgate/config.jsonc", KNOWN),
  });
}

Deno.test("a server added in the user's config answers for its files, listed as untested", async () => {
  const ws = await TempWorkspace.copy("css");
  // The CSS server, under an id and an extension of the user's choosing: no code, only config.
  await ws.write("theme.pcss", await ws.read("style.css"));
  const session = await open(
    ws,
    `{"servers": {"postcss": {
      "command": ["vscode-css-language-server", "--stdio"],
      "extensions": [".pcss"],
      "languageId": "css"
    }}}`,
  );
  try {
    const use = await ws.within("theme.pcss", "color: var(--brand)", "--brand");
    const definition = expectOk(
      await session.handle({
        id: 1,
        action: "definition",
        file: "theme.pcss",
        line: use.line,
        column: use.column,
      }),
    );
    assert.deepEqual(locationsOf(definition), [
      await ws.within("theme.pcss", "--brand: #", "--brand"),
    ]);
    const capabilities = expectOk(
      await session.handle({ id: 2, action: "capabilities", file: "theme.pcss" }),
    );
    assert.equal(capabilities.details.server, "postcss");
    const servers = expectOk(await session.handle({ id: 3, action: "servers" }));
    const postcss = (servers.details.adapters as Record<string, unknown>[])
      .find((a) => a.id === "postcss");
    assert.deepEqual(
      { ...postcss, command: String(postcss?.command).split("/").pop() },
      {
        id: "postcss",
        kind: "language",
        extensions: [".pcss"],
        filenames: [],
        rootMarkers: [],
        installed: true,
        command: "vscode-css-language-server",
        tested: false,
        origin: "config",
        disabled: false,
        installHint: 'Install vscode-css-language-server, or fix "command" of servers.postcss in ' +
          "your config.",
      },
    );
    assert.match(
      textOf(servers),
      /\n {2}postcss \(\.pcss\): installed \(\/\S+\/vscode-css-language-server\), from your config, untested\n/,
    );
  } finally {
    await session.close();
    await ws.remove();
  }
});

Deno.test("a configured server whose program is missing is SERVER_NOT_INSTALLED, naming the config", async () => {
  const ws = await TempWorkspace.copy("css");
  await ws.write("a.foo", "x\n");
  const session = await open(
    ws,
    `{"servers": {"foo": {"command": ["no-such-foo-server"], "extensions": [".foo"]}}}`,
  );
  try {
    const message = expectError(
      await session.handle({ id: 1, action: "symbols", file: "a.foo" }),
      "SERVER_NOT_INSTALLED",
    );
    assert.equal(
      message,
      "no-such-foo-server was not found on PATH or in lspgate's tools folder. Install " +
        'no-such-foo-server, or fix "command" of servers.foo in your config.',
    );
  } finally {
    await session.close();
    await ws.remove();
  }
});

Deno.test("basedpyright serves Python where the user's config prefers it", async () => {
  const ws = await TempWorkspace.copy("python");
  const session = await open(ws, `{"servers": {"basedpyright": {"preferred": true}}}`);
  try {
    const call = await ws.within("main.py", "message = greet(", "greet");
    const definition = expectOk(
      await session.handle({
        id: 1,
        action: "definition",
        file: "main.py",
        line: call.line,
        column: call.column,
      }),
    );
    assert.deepEqual(locationsOf(definition), [
      await ws.within("zoo/greeting.py", "def greet(", "greet"),
    ]);
    const capabilities = expectOk(
      await session.handle({ id: 2, action: "capabilities", file: "main.py" }),
    );
    assert.equal(capabilities.details.server, "basedpyright");
    await ws.write("zoo/extra.py", "def shout(text: str) -> int:\n    return text.upper()\n");
    const diagnostics = expectOk(
      await session.handle({ id: 3, action: "diagnostics", file: "zoo/extra.py" }),
    );
    const [file] = diagnostics.details.files as {
      diagnostics: { line: number; column: number; source?: string; code?: string }[];
    }[];
    assert.deepEqual(
      file.diagnostics.map(({ line, column, source, code }) => ({ line, column, source, code })),
      [{
        ...await ws.locate("zoo/extra.py", "text.upper()"),
        source: "basedpyright",
        code: "reportReturnType",
      }],
    );
  } finally {
    await session.close();
    await ws.remove();
  }
});

Deno.test("ruff lints beside pyright where the project configures Ruff: merged, each with its source", async () => {
  const ws = await TempWorkspace.copy("python");
  await ws.write(
    "pyproject.toml",
    (await ws.read("pyproject.toml")) + '\n[tool.ruff.lint]\nselect = ["F"]\n',
  );
  await ws.write("lint_me.py", 'import os\n名前: int = "😀"; import sys\n');
  const session = await open(ws);
  try {
    const answer = expectOk(
      await session.handle({ id: 1, action: "diagnostics", file: "lint_me.py" }),
    );
    const [file] = answer.details.files as {
      status: string;
      diagnostics: { line: number; column: number; source?: string; code?: unknown }[];
    }[];
    assert.equal(file.status, "ok");
    const found = file.diagnostics.map(({ line, column, source, code }) => ({
      line,
      column,
      source,
      code,
    }));
    assert.deepEqual(found.filter((d) => d.source === "Ruff"), [
      { ...await ws.locate("lint_me.py", "os"), source: "Ruff", code: "F401" },
      { ...await ws.locate("lint_me.py", "sys"), source: "Ruff", code: "F401" },
    ]);
    assert.deepEqual(
      found.filter((d) => d.source === "Pyright").map((d) => [d.line, d.column, d.code]),
      [[2, 11, "reportAssignmentType"]],
    );
  } finally {
    await session.close();
    await ws.remove();
  }
});

Deno.test("a workspace's .lspgate.jsonc changes a server's settings (CSS empty rules: error)", async () => {
  const ws = await TempWorkspace.copy("css");
  await ws.write("empty.css", ".nothing {}\n");
  const ask = async (session: Session) => {
    const answer = expectOk(
      await session.handle({ id: 1, action: "diagnostics", file: "empty.css" }),
    );
    const [file] = answer.details.files as { diagnostics: { severity: string; code?: string }[] }[];
    return file.diagnostics.map((d) => [d.severity, d.code]);
  };
  try {
    const plain = await open(ws);
    try {
      assert.deepEqual(await ask(plain), [["warning", "emptyRules"]]);
    } finally {
      await plain.close();
    }
    await ws.write(
      ".lspgate.jsonc",
      `{\n  // this project treats empty rules as errors\n  "servers": {"css": {"settings": ` +
        `{"css": {"lint": {"emptyRules": "error"}}}}}\n}\n`,
    );
    const configured = await open(ws);
    try {
      assert.deepEqual(await ask(configured), [["error", "emptyRules"]]);
    } finally {
      await configured.close();
    }
  } finally {
    await ws.remove();
  }
});

Deno.test("a workspace's .lspgate.jsonc that sets a command is ignored with a note naming file:line:key", async () => {
  const ws = await TempWorkspace.copy("bash");
  await ws.write(
    ".lspgate.jsonc",
    `{\n  "servers": {\n    "bash": {\n      "command": ["./evil.sh"]\n    }\n  }\n}\n`,
  );
  // Before: Session.open rejected, so lspgate did not start at all, whatever the role.
  const session = await open(ws);
  try {
    const status = expectOk(await session.handle({ id: 1, action: "status" }));
    const note =
      `.lspgate.jsonc ignored: config ${ws.root}/.lspgate.jsonc:4: servers.bash.command: ` +
      "not allowed in a workspace config; only your own config may set it (--config, or " +
      "~/.config/lspgate/config.jsonc): a repository does not choose what runs";
    assert.deepEqual(status.details.notices, [note]);
    assert.ok(textOf(status).includes(`note: ${note}`), textOf(status));
    // The shipped command serves the file: the repository chose nothing that runs.
    const symbols = expectOk(
      await session.handle({ id: 2, action: "symbols", file: "main.sh" }),
    );
    assert.ok((symbols.details.symbols as unknown[]).length > 0, textOf(symbols));
    const servers = expectOk(await session.handle({ id: 3, action: "servers" }));
    assert.ok(!JSON.stringify(servers.details).includes("evil.sh"));
  } finally {
    await session.close();
    await ws.remove();
  }
});

Deno.test("a workspace's .lspgate.jsonc that links outside the root is ignored, unread", async () => {
  const ws = await TempWorkspace.copy("bash");
  const outside = await Deno.makeTempFile({ suffix: ".jsonc" });
  await Deno.writeTextFile(outside, `{"timeoutMs": 60000}`);
  await Deno.symlink(outside, ws.path(".lspgate.jsonc"));
  const session = await open(ws);
  try {
    const status = expectOk(await session.handle({ id: 1, action: "status" }));
    const [note] = status.details.notices as string[];
    assert.match(note, /^\.lspgate\.jsonc ignored: .* is outside the workspace /);
    assert.ok(!note.includes("60000") && !note.includes(outside), note);
    assert.equal(session.options.config.timeoutMs, parseConfig("{}", "x", KNOWN).timeoutMs);
  } finally {
    await session.close();
    await ws.remove();
    await Deno.remove(outside);
  }
});

Deno.test("lspgate starts over a workspace whose .lspgate.jsonc it refuses, as a sub-agent too", async () => {
  const ws = await TempWorkspace.copy("bash");
  await ws.write(".lspgate.jsonc", `{"servers": {"bash": {"command": ["./evil.sh"]}}}`);
  try {
    for (const role of ["subagent", "main"]) {
      await startsRefusing(ws, role, /^\.lspgate\.jsonc ignored: config .*servers\.bash\.command/);
    }
    // 6,000 levels deep, with a comment (the lenient parser's path): it overflowed the stack, and
    // lspgate exited INTERNAL before serving anything, whatever the role.
    const deep = "[".repeat(6_000) + "1" + "]".repeat(6_000);
    await ws.write(".lspgate.jsonc", `// deep\n{"servers": {"bash": {"settings": ${deep}}}}`);
    const refused = /^\.lspgate\.jsonc ignored: config .*:\d+:\d+: nested deeper than 64 levels$/;
    await startsRefusing(ws, "subagent", refused);
    // A line comment the parser ends at \r hid the nest from the count (a reviewer's find).
    await ws.write(".lspgate.jsonc", `{"servers": {"bash": {"settings": // x\r${deep}}}}`);
    await startsRefusing(ws, "main", refused);
  } finally {
    await ws.remove();
  }
});

/** lspgate over `ws` as `role` answers status, its notice and stderr saying the config was refused. */
async function startsRefusing(ws: TempWorkspace, role: string, notice: RegExp) {
  const program = new Program(["--root", ws.root, "--role", role, "--no-servers"]);
  try {
    await program.send({ id: 1, action: "status" });
    const [status] = await program.read(1);
    assert.equal(status.ok, true, JSON.stringify(status));
    const notices = (status.details as { notices: string[] }).notices;
    assert.match(notices[0], notice);
    const { code, stderr } = await program.finish();
    assert.equal(code, 0);
    assert.ok(stderr.includes(`lspgate: ${notices[0]}`), stderr);
  } catch (error) {
    await program.kill();
    throw error;
  }
}
