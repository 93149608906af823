// The server clients' wall. By default each language server's client runs on lspgate's main
// thread, the server's sandbox its wall: that holds because the client's own code (everything
// src/lsp/client.ts loads) touches no file, network, environment or FFI API of Deno's: it spawns
// the command the manager resolved and speaks JSON-RPC over its pipes. The first test keeps that
// true as the code changes. `clientWorkers: true` puts each client in a Worker of its own again
// (allowed to spawn only its server): the second test sees the Worker's thread come and go, with
// the same answer either way.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { moduleGraph } from "../helpers/module_graph.ts";
import { REPO_ROOT } from "../helpers/program.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

// What the client's code may use of Deno: starting and signalling its server, error classes, and
// whether a timer holds the process open (its request deadlines: src/deadlines.ts), no I/O.
const ALLOWED = new Set([
  "Deno.Command",
  "Deno.ChildProcess",
  "Deno.kill",
  "Deno.Signal",
  "Deno.pid",
  "Deno.errors",
  "Deno.refTimer",
  "Deno.unrefTimer",
]);

/** Each use of a Deno API outside `allowed`, dynamic import, fetch or Node I/O in `entry`'s graph. */
async function usesOutside(entry: string, allowed: Set<string>): Promise<string[]> {
  const graph = await moduleGraph(entry);
  const local = graph.modules.map((m) => m.specifier).filter((s) => s.startsWith("file:"));
  assert.ok(local.length > 1, `${entry}'s graph: ${local.join(", ")}`);
  const found: string[] = [];
  for (const specifier of local) {
    const text = await Deno.readTextFile(fileURLToPath(specifier));
    const name = specifier.slice(specifier.indexOf("/src/") + 1);
    for (const [use] of text.matchAll(/\bDeno\.[A-Za-z]+/g)) {
      if (!allowed.has(use)) found.push(`${name}: ${use}`);
    }
    // No way around the list: no dynamic import, no fetch, no Node built-in with its own I/O.
    for (const [use] of text.matchAll(/\bimport\(|\bfetch\(|from "node:(?!path)[a-z_]+"/g)) {
      found.push(`${name}: ${use}`);
    }
  }
  return found;
}

Deno.test("the server client's own code uses no Deno API beyond spawning and signalling its server", async () => {
  const found = await usesOutside("src/lsp/client.ts", ALLOWED);
  assert.deepEqual(found, [], "the client must not reach files, network or environment itself");
});

// The workspace watcher of lspgate's own front ends runs on the main thread too (a session that
// lasts its process): its code only watches, and hands paths to the main thread's checks.
Deno.test("the workspace watcher's own code uses no Deno API beyond watching", async () => {
  const found = await usesOutside(
    "src/servers/watch_service.ts",
    new Set(["Deno.watchFs", "Deno.FsWatcher"]),
  );
  assert.deepEqual(found, [], "the watcher must not read, write or reach anything itself");
});

// lspgate's watcher process (inotify_watch.ts) holds --allow-ffi on libc, so Deno's permissions do
// not bind it: what its code uses is the whole of what it does (permissions.md, wall 3).
Deno.test("the watcher process's own code lists folders, watches through libc and writes its pipe, nothing more", async () => {
  const found = await usesOutside(
    "src/servers/inotify_watch.ts",
    new Set([
      "Deno.dlopen",
      "Deno.readDirSync",
      "Deno.DirEntry",
      "Deno.stdout",
      "Deno.stdin",
      "Deno.exit",
      "Deno.args",
    ]),
  );
  assert.deepEqual(found, [], "the watcher process must not open, write or reach anything else");
});

/** Worker threads of a process, by the names Deno gives them ("worker-N"). */
function workerThreads(pid: number): number {
  let count = 0;
  for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
    const comm = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/comm`).trim();
    if (/^worker-\d+$/.test(comm)) count++;
  }
  return count;
}

async function askWith(root: string, config: string | undefined) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "task",
      "--quiet",
      "start",
      "--root",
      root,
      "--sandbox",
      "none",
      ...(config ? ["--config", config] : []),
    ],
    cwd: REPO_ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const next = async () => {
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("lspgate closed its output");
      buffered += value;
    }
    const at = buffered.indexOf("\n");
    const line = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    return JSON.parse(line);
  };
  const send = (request: Record<string, unknown>) =>
    writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
  try {
    await send({ id: 1, action: "definition", file: "src/main.ts", line: 1, symbol: "greet" });
    const definition = await next();
    // `deno task` runs lspgate as its child: the Worker threads are that process's.
    const lspgatePid = Number(
      Deno.readTextFileSync(`/proc/${child.pid}/task/${child.pid}/children`).trim().split(" ")[0],
    );
    const threads = workerThreads(lspgatePid);
    await send({ id: 2, action: "status" });
    const status = await next();
    return { definition, threads, status };
  } finally {
    await writer.close();
    await lines.cancel();
    await child.stderr.cancel();
    await child.status;
  }
}

Deno.test("clientWorkers: true runs the client in a Worker of its own; the answer is the same", async () => {
  const ws = await TempWorkspace.copy("deno");
  try {
    const config = `${ws.root}/../client-workers.json`;
    await Deno.writeTextFile(config, JSON.stringify({ clientWorkers: true }));
    const plain = await askWith(ws.root, undefined);
    const isolated = await askWith(ws.root, config);
    await Deno.remove(config);
    for (const run of [plain, isolated]) {
      assert.equal(run.definition.ok, true, JSON.stringify(run.definition));
      assert.deepEqual(
        run.definition.details.locations.map((l: { file: string; line: number }) => [
          l.file,
          l.line,
        ]),
        [["src/greet.ts", 2]],
      );
    }
    assert.equal(plain.status.details.clientWorkers, false);
    assert.equal(isolated.status.details.clientWorkers, true);
    assert.match(plain.status.content[0].text, /server clients: on lspgate's main thread/);
    // No Worker by default: the client and, for a workspace this small, the watcher run on the
    // main thread of the program; with clientWorkers the client has its own.
    assert.deepEqual([plain.threads, isolated.threads], [0, 1]);
  } finally {
    await ws.remove();
  }
});
