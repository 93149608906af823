// A known adapter whose server binary is missing answers SERVER_NOT_INSTALLED with the way to
// install it, and the service goes on; another adapter's server still answers.
import assert from "node:assert/strict";
import { ADAPTERS, defaultConfig, Session } from "../../mod.ts";
import { expectError, expectOk } from "../helpers/session.ts";
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
