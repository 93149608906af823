// workspaceServers() and the project list behind it, over real folders and the shipped adapters,
// with a stand-in manager that starts nothing: it records what is acquired and answers as told.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ADAPTERS } from "../../adapters/mod.ts";
import { LspGateError } from "../errors.ts";
import type { ServerClient } from "../lsp/server_client.ts";
import { WorkspaceRoot } from "../permissions/workspace.ts";
import type { ChangeListener, ServerManager } from "../servers/manager.ts";
import { pickAdapter } from "../servers/pick.ts";
import type { ChangeTracking } from "../servers/watcher.ts";
import type { ActionContext } from "./types.ts";
import { chooseOpener } from "./workspace_projects.ts";
import { MAX_SERVERS, workspaceServers } from "./workspace_servers.ts";

interface Stand {
  context: ActionContext;
  root: string;
  /** Workspace-relative files acquired, in order. */
  acquired: string[];
  globs: number;
  listeners: ChangeListener[];
  /** Per adapter id: the error its acquire throws. */
  failing: Map<string, LspGateError>;
  /** Adapter ids whose servers do not offer workspace/symbol. */
  lacking: Set<string>;
  remove(): Promise<void>;
}

async function stand(
  files: Record<string, string>,
  tracking: ChangeTracking = "exact",
): Promise<Stand> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-projects-" }));
  for (const [rel, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, rel), text);
  }
  const workspace = await WorkspaceRoot.open(root);
  const s: Stand = {
    root,
    acquired: [],
    globs: 0,
    listeners: [],
    failing: new Map(),
    // The CSS server offers no workspace symbols.
    lacking: new Set(["css"]),
    context: undefined as unknown as ActionContext,
    remove: () => Deno.remove(root, { recursive: true }),
  };
  const glob = workspace.glob.bind(workspace);
  workspace.glob = (pattern, options) => {
    s.globs++;
    return glob(pattern, options);
  };
  const manager = {
    options: { adapters: ADAPTERS },
    pick: (file: string) => pickAdapter(file, root, ADAPTERS),
    entries: () => [],
    onChanges(listener: ChangeListener) {
      s.listeners.push(listener);
      return () => {};
    },
    async acquire(file: string) {
      const pick = (await pickAdapter(file, root, ADAPTERS))!;
      const failure = s.failing.get(pick.adapter.id);
      if (failure) throw failure;
      await Deno.stat(file);
      s.acquired.push(workspace.relative(file));
      const client = {
        exited: false,
        supports: () => !s.lacking.has(pick.adapter.id),
      } as unknown as ServerClient;
      return { client, release: () => {} };
    },
  } as unknown as ServerManager;
  s.context = {
    workspace,
    manager,
    signal: new AbortController().signal,
    timeoutMs: 1000,
    readyTimeoutMs: 1000,
    session: { changeTracking: () => tracking },
  } as unknown as ActionContext;
  return s;
}

const ask = (s: Stand) => workspaceServers(s.context, { method: "workspace/symbol" });

/** The source files acquired (not the JSON server's tsconfig.json), sorted. */
const sources = (s: Stand) => s.acquired.filter((f) => !f.endsWith(".json")).sort();

Deno.test("workspaceServers() opens a .ts the tsconfig includes, not a .js sorted before it", async () => {
  const s = await stand({
    "tsconfig.json": '{ "include": ["src"] }',
    "src/Rx.global.js": "var Rx = {};\n",
    "src/a.ts": "export const a = 1;\n",
    "jest.config.ts": "export default {};\n",
  });
  try {
    const found = await ask(s);
    assert.deepEqual(found.servers.map((x) => [x.id, x.root]), [["typescript", "."]]);
    assert.deepEqual(sources(s), ["src/a.ts"]);
    // Configuration data (tsconfig.json) is no project of code: its server is not even started.
    assert.deepEqual(found.unsupported, []);
    assert.deepEqual(s.acquired.filter((f) => f.endsWith(".json")), []);
    assert.equal(found.partial, false);
  } finally {
    await s.remove();
  }
});

Deno.test("workspaceServers() walks once, and again only after a file is created or deleted", async () => {
  const s = await stand({ "tsconfig.json": "{}", "a.ts": "", "b.ts": "", "lib/c.py": "" });
  try {
    await ask(s);
    await ask(s);
    assert.equal(s.globs, 1, "one walk for every adapter, remembered");
    for (const listener of s.listeners) listener([{ path: join(s.root, "a.ts"), type: 2 }]);
    await ask(s);
    assert.equal(s.globs, 1, "an edit to a source file changes no project");
    await Deno.mkdir(join(s.root, "pkg"));
    await Deno.writeTextFile(join(s.root, "pkg/tsconfig.json"), "{}");
    await Deno.writeTextFile(join(s.root, "pkg/d.ts"), "");
    for (const listener of s.listeners) {
      listener([{ path: join(s.root, "pkg/d.ts"), type: 1 }]);
    }
    s.acquired.length = 0;
    const found = await ask(s);
    assert.equal(s.globs, 2);
    assert.deepEqual(found.servers.map((x) => [x.id.replace("based", ""), x.root]), [
      ["typescript", "."],
      ["typescript", "pkg"],
      ["pyright", "."],
    ]);
    assert.deepEqual(sources(s), ["a.ts", "lib/c.py", "pkg/d.ts"]);
    for (const listener of s.listeners) listener("lost");
    await ask(s);
    assert.equal(s.globs, 3, "changes lost: nothing remembered is trusted");
  } finally {
    await s.remove();
  }
});

Deno.test("workspaceServers() walks on every call when nothing follows the disk", async () => {
  const s = await stand({ "tsconfig.json": "{}", "a.ts": "" }, "off");
  try {
    await ask(s);
    await ask(s);
    assert.equal(s.globs, 2);
  } finally {
    await s.remove();
  }
});

Deno.test("workspaceServers() walks again when a remembered opener is gone", async () => {
  const s = await stand({ "tsconfig.json": "{}", "a.ts": "", "b.ts": "" });
  try {
    await ask(s);
    // Deleted with no word from the watcher (its event not delivered yet).
    await Deno.remove(join(s.root, "a.ts"));
    s.acquired.length = 0;
    const found = await ask(s);
    assert.deepEqual(sources(s), ["b.ts"]);
    assert.equal(s.globs, 2);
    assert.equal(found.servers.length, 1);
    assert.equal(found.partial, false);
  } finally {
    await s.remove();
  }
});

Deno.test("workspaceServers() skips servers not installed, and says which could not start", async () => {
  const s = await stand({ "tsconfig.json": "{}", "a.ts": "", "b.py": "", "c.go": "" });
  try {
    s.failing.set("gopls", new LspGateError("SERVER_NOT_INSTALLED", "gopls was not found"));
    s.failing.set("pyright", new LspGateError("SERVER_START_FAILED", "pyright crashed at start"));
    const found = await ask(s);
    assert.deepEqual(found.servers.map((x) => x.id), ["typescript"]);
    assert.deepEqual(found.missing, ["gopls"]);
    assert.equal(found.partial, true);
    assert.deepEqual(found.notes, ["pyright (.) was not searched: pyright crashed at start"]);
    assert.equal(found.failure?.code, "SERVER_START_FAILED");
  } finally {
    await s.remove();
  }
});

Deno.test("workspaceServers() holds at most MAX_SERVERS and says projects were left out", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < MAX_SERVERS + 2; i++) {
    files[`p${i}/tsconfig.json`] = "{}";
    files[`p${i}/x.ts`] = "";
  }
  const s = await stand(files);
  try {
    // A server not installed leaves its place to the next project.
    s.failing.set("typescript", new LspGateError("SERVER_NOT_INSTALLED", "missing"));
    assert.equal((await ask(s)).servers.length, 0);
    s.failing.clear();
    const found = await ask(s);
    assert.equal(found.servers.length, MAX_SERVERS);
    assert.equal(found.partial, true);
    assert.match(found.notes.join("\n"), /Only the first 8 projects were searched/);
  } finally {
    await s.remove();
  }
});

Deno.test("workspaceServers() lists servers that lack the method instead of holding them", async () => {
  const s = await stand({ "tsconfig.json": "{}", "a.ts": "", "style.css": "" });
  try {
    const found = await ask(s);
    assert.deepEqual(found.servers.map((x) => x.id), ["typescript"]);
    assert.deepEqual(found.unsupported, ["css"]);
    assert.equal(found.partial, false);
  } finally {
    await s.remove();
  }
});

Deno.test("workspaceServers() leaves heavy folders and symlinks out of the workspace unwalked", async () => {
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate-outside-" }));
  const s = await stand({ "node_modules/pkg/tsconfig.json": "{}", "node_modules/pkg/x.ts": "" });
  try {
    await Deno.writeTextFile(join(outside, "tsconfig.json"), "{}");
    await Deno.writeTextFile(join(outside, "secret.ts"), "");
    await Deno.symlink(outside, join(s.root, "linked"));
    const found = await ask(s);
    assert.deepEqual(found.servers, []);
    assert.deepEqual(sources(s), []);
  } finally {
    await s.remove();
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("chooseOpener() prefers a file the config includes, then where most files are, then the adapter's first language", () => {
  const ts = ADAPTERS.find((a) => a.id === "typescript")!;
  const rxjs = ["/w/jest.config.ts", "/w/src/Rx.global.js", "/w/src/a.ts", "/w/src/b.ts"];
  assert.equal(chooseOpener(ts, "/w", rxjs), "/w/src/a.ts");
  assert.equal(chooseOpener(ts, "/w", rxjs, (rel) => rel.startsWith("src/")), "/w/src/a.ts");
  assert.equal(
    chooseOpener(ts, "/w", rxjs, (rel) => rel === "jest.config.ts"),
    "/w/jest.config.ts",
  );
  // Vite's layout: a solution-style tsconfig.json (no files of its own), the app in src/.
  const vite = ["/w/src/App.tsx", "/w/src/main.tsx", "/w/vite.config.ts"];
  assert.equal(chooseOpener(ts, "/w", vite, () => false), "/w/src/App.tsx");
  assert.equal(chooseOpener(ts, "/w", ["/w/a.js", "/w/b.ts"]), "/w/b.ts");
});
