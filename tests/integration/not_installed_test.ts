// A known adapter whose server binary is missing answers SERVER_NOT_INSTALLED with the way to
// install it, and the service goes on; another adapter's server still answers.
import assert from "node:assert/strict";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { expectError, expectOk } from "../helpers/session.ts";
import { sandboxFor } from "../../src/frontends/main.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

Deno.test("a missing server binary is SERVER_NOT_INSTALLED with its install hint", async () => {
  const ws = await TempWorkspace.copy("python");
  const config = defaultConfig();
  config.servers = { pyright: { command: ["/nonexistent/pyright-langserver", "--stdio"] } };
  const session = await Session.open({
    root: ws.root,
    role: "main",
    allowMutations: false,
    adapters: ADAPTERS,
    config,
  });
  try {
    const message = expectError(
      await session.handle({ id: 1, action: "hover", file: "main.py", line: 5, symbol: "greet" }),
      "SERVER_NOT_INSTALLED",
    );
    assert.match(message, /\/nonexistent\/pyright-langserver was not found/);
    assert.match(message, /npm install -g pyright/);
    await ws.write("tool.ts", "export const answer = 42;\n");
    expectOk(await session.handle({ id: 2, action: "symbols", file: "tool.ts" }));
  } finally {
    await session.close();
    await ws.remove();
  }
});

Deno.test("a configured command that is missing is SERVER_NOT_INSTALLED under bubblewrap too, never a sandbox's execvp failure", async () => {
  const ws = await TempWorkspace.copy("python");
  const config = defaultConfig();
  config.servers = { pyright: { command: ["no-such-pyright-langserver", "--stdio"] } };
  const flags = {
    root: ws.root,
    role: "main" as const,
    allowMutations: false,
    config,
    sandbox: "bwrap" as const,
    trust: false,
    json: false,
  };
  const { wrap, label, sandboxed } = await sandboxFor(flags);
  assert.equal(sandboxed, true, label);
  const session = await Session.open({
    root: ws.root,
    role: "main",
    allowMutations: false,
    adapters: ADAPTERS,
    config,
    wrap,
    sandboxed,
  });
  try {
    const message = expectError(
      await session.handle({ id: 1, action: "hover", file: "main.py", line: 5, symbol: "greet" }),
      "SERVER_NOT_INSTALLED",
    );
    assert.match(message, /no-such-pyright-langserver was not found for pyright/);
  } finally {
    await session.close();
    await ws.remove();
  }
});
