// Wall 1 against a hostile language server (tests/fakes/hostile_server.ts): locations outside
// are listed without source, edits that touch the outside are refused whole, and nothing a server
// asks the client to write is written.
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertOk,
  assertRefused,
  type AttackFixture,
  contextUnder,
  snapshotTree,
  withFixture,
} from "./fixture.ts";

const AT_ALPHA = { file: "src/a.ts", line: 1, column: 14 };

/** Waits (bounded) until the hostile server has logged an entry that `match` accepts. */
async function waitForLog(
  fx: AttackFixture,
  match: (entry: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = (await fx.logEntries()).find(match);
    if (found) return found;
    if (Date.now() > deadline) assert.fail("the hostile server never logged the expected entry");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function methodsSeen(entries: Record<string, unknown>[]): string[] {
  return entries.filter((e) => e.event === "request").map((e) => String(e.method));
}

// --- locations outside: listed, never read ----------------------------------------------

Deno.test("hostile definition: outside and symlinked locations are listed without context", () =>
  withFixture(async (fx) => {
    const session = await fx.open({ role: "subagent" });
    const request = { action: "definition", ...AT_ALPHA };
    const response = assertOk(await fx.ask(session, request), request);
    const text = response.content[0].text;
    const files = (response.details.locations as { file: string }[]).map((l) => l.file);
    assert.deepEqual(files.sort(), [fx.secret, fx.secret, "src/a.ts", "src/leak.ts"].sort());
    assert.ok(contextUnder(text, "src/a.ts:1:1").length > 0, "inside locations keep context");
    assert.deepEqual(contextUnder(text, `${fx.secret}:2:3`), []);
    assert.deepEqual(contextUnder(text, `${fx.secret}:5:1`), []); // the LocationLink
    assert.deepEqual(contextUnder(text, "src/leak.ts:3:1"), []);
  }));

Deno.test("hostile references: outside, via file link, via folder link and `%2e%2e` are unread", () =>
  withFixture(async (fx) => {
    const session = await fx.open({ role: "subagent" });
    const request = { action: "references", ...AT_ALPHA };
    const response = assertOk(await fx.ask(session, request), request);
    const text = response.content[0].text;
    const files = (response.details.locations as { file: string }[]).map((l) => l.file).sort();
    assert.deepEqual(
      files,
      [fx.secret, fx.secret, "linkdir/secret.ts", "src/a.ts", "src/leak.ts"].sort(),
    );
    for (const head of [`${fx.secret}:2:3`, `${fx.secret}:4:1`, "linkdir/secret.ts:1:1"]) {
      assert.deepEqual(contextUnder(text, head), [], head);
    }
    assert.deepEqual(contextUnder(text, "src/leak.ts:3:1"), []);
  }));

Deno.test("hostile call hierarchy and workspace symbols outside are listed unread", () =>
  withFixture(async (fx) => {
    const session = await fx.open({ role: "subagent" });
    for (
      const request of [
        { action: "call_hierarchy", ...AT_ALPHA },
        { action: "incoming_calls", ...AT_ALPHA },
        { action: "outgoing_calls", ...AT_ALPHA },
        { action: "symbols", file: "*", query: "stolen" },
        { action: "diagnostics", file: "src/a.ts" },
        { action: "hover", ...AT_ALPHA },
      ]
    ) {
      assertOk(await fx.ask(session, request), request);
    }
  }));

// --- edits outside: refused whole, before anything is written ----------------------------

const RENAME_VARIANTS: { newName: string; what: string }[] = [
  { newName: "mixed", what: "an inside file and an outside file" },
  { newName: "onlyOutside", what: "only an outside file" },
  { newName: "viaLink", what: "an inside file and a symlink pointing out" },
  { newName: "viaLinkDir", what: "an inside file and a file in a symlinked folder" },
  { newName: "renameOut", what: "a `rename` resource op whose newUri is outside" },
  { newName: "renameIn", what: "a `rename` resource op whose oldUri is outside" },
  { newName: "createOut", what: "a `create` outside" },
  { newName: "createViaLinkDir", what: "a `create` in a symlinked folder" },
  { newName: "createDangling", what: "a `create` over a dangling symlink that points out" },
  { newName: "deleteOut", what: "a `delete` outside" },
  { newName: "encodedOut", what: "a `%2e%2e` percent-encoded URI" },
  { newName: "hostOut", what: "a file://host/ URI" },
];

for (const { newName, what } of RENAME_VARIANTS) {
  Deno.test(`hostile rename touching ${what}: OUTSIDE_WORKSPACE, inside untouched too`, () =>
    withFixture(async (fx) => {
      const before = await snapshotTree(fx.root);
      const reader = await fx.open({ role: "subagent" });
      const writer = await fx.open({ role: "main", allowMutations: true });
      const preview = { action: "rename", ...AT_ALPHA, new_name: newName };
      assertRefused(await fx.ask(reader, preview), "OUTSIDE_WORKSPACE", preview);
      const apply = { ...preview, apply: true };
      assertRefused(await fx.ask(writer, apply), "OUTSIDE_WORKSPACE", apply);
      assert.deepEqual(await snapshotTree(fx.root), before, "the workspace changed");
      const renames = (await fx.logEntries()).filter((e) => e.method === "textDocument/rename");
      assert.equal(renames.length, 2, "the server was asked: the refusal is about its answer");
    }));
}

Deno.test("hostile rename inside only is applied (control for the cases above)", () =>
  withFixture(async (fx) => {
    const writer = await fx.open({ role: "main", allowMutations: true });
    const request = { action: "rename", ...AT_ALPHA, new_name: "insideOnly", apply: true };
    const response = assertOk(await fx.ask(writer, request), request);
    assert.equal(response.details.applied, true);
    assert.match(await Deno.readTextFile(join(fx.root, "src/a.ts")), /^\/\/ renamed to insideOnly/);
  }));

Deno.test("hostile rename_file whose willRenameFiles edit touches outside: nothing moves", () =>
  withFixture(async (fx) => {
    const before = await snapshotTree(fx.root);
    const reader = await fx.open({ role: "subagent" });
    const writer = await fx.open({ role: "main", allowMutations: true });
    const preview = { action: "rename_file", file: "src/b.ts", new_name: "src/evil.ts" };
    assertRefused(await fx.ask(reader, preview), "OUTSIDE_WORKSPACE", preview);
    const apply = { ...preview, apply: true };
    assertRefused(await fx.ask(writer, apply), "OUTSIDE_WORKSPACE", apply);
    assert.deepEqual(await snapshotTree(fx.root), before, "the workspace changed");
  }));

const CODE_ACTIONS: { title: string; code: string; what: string }[] = [
  { title: "Fix outside", code: "OUTSIDE_WORKSPACE", what: "whose edit touches outside" },
  {
    title: "Resolve outside",
    code: "OUTSIDE_WORKSPACE",
    what: "whose codeAction/resolve edit touches outside",
  },
  { title: "Run hostile command", code: "ACTION_NOT_ALLOWED", what: "with only a command" },
  { title: "Bare command", code: "ACTION_NOT_ALLOWED", what: "that is a bare Command" },
];

for (const { title, code, what } of CODE_ACTIONS) {
  Deno.test(`hostile code action ${what}: ${code}, nothing written or run`, () =>
    withFixture(async (fx) => {
      const before = await snapshotTree(fx.root);
      const writer = await fx.open({ role: "main", allowMutations: true });
      const request = { action: "code_actions", ...AT_ALPHA, query: title, apply: true };
      assertRefused(await fx.ask(writer, request), code, request);
      assert.deepEqual(await snapshotTree(fx.root), before, "the workspace changed");
      const methods = methodsSeen(await fx.logEntries());
      assert.ok(!methods.includes("workspace/executeCommand"), "a server command was run");
    }));
}

Deno.test("hostile code action inside only is applied (control)", () =>
  withFixture(async (fx) => {
    const writer = await fx.open({ role: "main", allowMutations: true });
    const request = { action: "code_actions", ...AT_ALPHA, query: "Fix inside", apply: true };
    assertOk(await fx.ask(writer, request), request);
    assert.match(await Deno.readTextFile(join(fx.root, "src/a.ts")), /^\/\/ fix\n/);
  }));

// --- the server asking the client to write -------------------------------------------------

Deno.test("workspace/applyEdit from the server is answered applied: false; nothing written", () =>
  withFixture(async (fx) => {
    const before = await snapshotTree(fx.root);
    // Even main with mutations: the server never writes through lspgate.
    const session = await fx.open({ role: "main", allowMutations: true });
    const request = { action: "hover", ...AT_ALPHA };
    assertOk(await fx.ask(session, request), request);
    const logged = await waitForLog(fx, (e) => e.event === "applyEdit");
    assert.equal(logged.reason, "initialized");
    assert.equal((logged.answer as { applied?: unknown }).applied, false, JSON.stringify(logged));
    assert.deepEqual(await snapshotTree(fx.root), before, "the workspace changed");
  }));

Deno.test("workspace/executeCommand (main, mutations): the server's applyEdit is refused", () =>
  withFixture(async (fx) => {
    const before = await snapshotTree(fx.root);
    const session = await fx.open({ role: "main", allowMutations: true });
    const request = {
      action: "request",
      file: "src/a.ts",
      query: "workspace/executeCommand",
      payload: { command: "hostile.run", arguments: [] },
    };
    const response = assertOk(await fx.ask(session, request), request);
    const result = response.details.result as { applyEdit?: { applied?: unknown } };
    assert.equal(result.applyEdit?.applied, false, JSON.stringify(result));
    const logged = await waitForLog(fx, (e) => e.reason === "executeCommand");
    assert.equal((logged.answer as { applied?: unknown }).applied, false);
    assert.deepEqual(await snapshotTree(fx.root), before, "the workspace changed");
  }));

// --- URIs in a raw request's payload ------------------------------------------------------

const PAYLOADS: { name: string; payload: (fx: AttackFixture) => unknown }[] = [
  {
    name: "file:///etc/passwd",
    payload: () => ({ textDocument: { uri: "file:///etc/passwd" }, position: at0 }),
  },
  {
    name: "FILE:///etc/passwd (upper case)",
    payload: () => ({ textDocument: { uri: "FILE:///etc/passwd" }, position: at0 }),
  },
  {
    name: "a canary URI",
    payload: (fx) => ({ textDocument: { uri: `file://${fx.secret}` }, position: at0 }),
  },
  {
    name: "a symlink inside pointing out",
    payload: (fx) => ({ textDocument: { uri: `file://${fx.link}` }, position: at0 }),
  },
  {
    name: "a `%2e%2e` URI",
    payload: (fx) => ({
      textDocument: { uri: `file://${fx.root}/%2e%2e/outside/secret.ts` },
      position: at0,
    }),
  },
  {
    name: "a file://host/ URI",
    payload: (fx) => ({ textDocument: { uri: `file://attacker.example${fx.secret}` } }),
  },
  {
    name: "a URI nested in arrays",
    payload: (fx) => ({ items: [{ deep: [[`file://${fx.secret}`]] }] }),
  },
  {
    name: "a URI in a JSON string payload",
    payload: () => JSON.stringify({ textDocument: { uri: "file:///etc/passwd" } }),
  },
  {
    // Hole: admin.ts fileUris() walks Object.values only, so a URI used as an object key (the
    // shape of WorkspaceEdit.changes, e.g. in codeAction/resolve) reaches the server unchecked.
    name: "a URI as an object key (WorkspaceEdit.changes)",
    payload: () => ({ title: "x", edit: { changes: { "file:///etc/passwd": [] } } }),
  },
];
const at0 = { line: 0, character: 0 };

for (const { name, payload } of PAYLOADS) {
  Deno.test(`raw request with ${name} in its payload: OUTSIDE_WORKSPACE, never sent`, () =>
    withFixture(async (fx) => {
      const session = await fx.open({ role: "subagent" });
      const query = name.includes("object key") ? "codeAction/resolve" : "textDocument/hover";
      const request = { action: "request", file: "src/a.ts", query, payload: payload(fx) };
      const response = await fx.ask(session, request);
      const sent = (await fx.logEntries()).filter((e) => e.method === query);
      assertRefused(response, "OUTSIDE_WORKSPACE", request);
      assert.deepEqual(sent, [], "the payload reached the server");
    }));
}

Deno.test("raw request with `$FILE` for the document's own URI is served (control)", () =>
  withFixture(async (fx) => {
    const session = await fx.open({ role: "subagent" });
    const request = {
      action: "request",
      file: "src/a.ts",
      query: "textDocument/hover",
      payload: { textDocument: { uri: "$FILE" }, position: at0 },
    };
    assertOk(await fx.ask(session, request), request);
  }));
