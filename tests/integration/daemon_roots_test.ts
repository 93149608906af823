// One daemon for all of a user's workspaces: two copies of the deno fixture, A and B, asked by
// real `lspgate call` processes that share one runtime folder, reach one daemon (the same
// daemonPid), and each connection stays inside its own root: B's files are refused to A's client
// by any path or URI, and an edit in B never shows in A's answers.
import assert from "node:assert/strict";
import { join } from "node:path";
import { toFileUrl } from "../../src/servers/uri.ts";
import { runLspgate } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

interface Call {
  code: number;
  stdout: string;
  stderr: string;
}

Deno.test("two workspaces share one daemon, and neither learns anything of the other", async (t) => {
  const a = await TempWorkspace.copy("deno");
  const b = await TempWorkspace.copy("deno");
  const runtime = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_rt_" }));
  await Deno.chmod(runtime, 0o700);
  const env = { XDG_RUNTIME_DIR: runtime, LSPGATE_NO_DAEMON: "0" };
  const run = (ws: TempWorkspace, args: string[]): Promise<Call> =>
    runLspgate([...args, "--root", ws.root], { env });
  const json = async (ws: TempWorkspace, args: string[]) => {
    const out = await run(ws, [...args, "--json"]);
    assert.doesNotMatch(out.stderr, /could not be used/, out.stderr);
    return JSON.parse(out.stdout);
  };
  try {
    await t.step(
      "both roots are served by one daemon (one socket, the same daemonPid)",
      async () => {
        const fromA = await json(a, ["call", "status"]);
        const fromB = await json(b, ["call", "status"]);
        assert.equal(typeof fromA.details.daemonPid, "number", JSON.stringify(fromA.details));
        assert.equal(fromB.details.daemonPid, fromA.details.daemonPid);
        assert.equal(fromA.details.root, a.root);
        assert.equal(fromB.details.root, b.root);
        const sockets = [...Deno.readDirSync(join(runtime, "lspgate"))]
          .filter((e) => e.name.endsWith(".sock"));
        assert.equal(sockets.length, 1, sockets.map((e) => e.name).join());
        const daemon = JSON.parse((await run(a, ["daemon", "status"])).stdout);
        assert.equal(daemon.daemonPid, fromA.details.daemonPid);
        // How many workspaces it serves, never which (see the next step).
        assert.equal(daemon.workspaces, 2);
      },
    );

    await t.step("the watcher process both roots share is not measured for either", async () => {
      const { details } = await json(a, ["call", "status"]);
      assert.equal(details.watcher?.runsOn, "process", JSON.stringify(details.watcher));
      assert.equal(details.watcher.shared, true);
      assert.equal(details.watcher.rssMiB, undefined);
    });

    await t.step("a daemon status names no other root, main or sub-agent", async () => {
      for (const role of ["main", "subagent"]) {
        const daemon = JSON.parse((await run(a, ["daemon", "status", "--role", role])).stdout);
        assert.equal(daemon.root, a.root);
        assert.ok(!JSON.stringify(daemon).includes(b.root), JSON.stringify(daemon));
      }
    });

    await t.step("A's client asking for B's file by any path or URI is refused", async () => {
      const inB = join(b.root, "src", "greet.ts");
      const relative = join("..", b.root.split("/").at(-1)!, "src", "greet.ts");
      for (const file of [inB, relative, toFileUrl(inB)]) {
        const out = await run(a, [
          "call",
          "hover",
          `file=${file}`,
          "line=2",
          "column=17",
          "--json",
        ]);
        const answer = JSON.parse(out.stdout);
        assert.equal(answer.ok, false, `${file}: ${out.stdout}`);
        assert.equal(answer.error.code, "OUTSIDE_WORKSPACE", `${file}: ${out.stdout}`);
      }
    });

    await t.step("an edit in B never appears in A's answers", async () => {
      // Both roots warm on the same file.
      for (const ws of [a, b]) {
        const outline = await json(ws, ["call", "symbols", "file=src/greet.ts"]);
        assert.ok(outline.content[0].text.includes("greetAll"), outline.content[0].text);
      }
      await b.write(
        "src/greet.ts",
        (await b.read("src/greet.ts")).replaceAll("greetAll", "welcomeEveryoneInB"),
      );
      const inB = await json(b, ["call", "symbols", "file=src/greet.ts"]);
      assert.ok(inB.content[0].text.includes("welcomeEveryoneInB"), inB.content[0].text);
      const inA = await json(a, ["call", "symbols", "file=src/greet.ts"]);
      assert.ok(inA.content[0].text.includes("greetAll"), inA.content[0].text);
      assert.ok(!JSON.stringify(inA).includes("welcomeEveryoneInB"), JSON.stringify(inA));
      const search = await json(a, ["call", "symbols", "file=*", "query=welcomeEveryoneInB"]);
      assert.equal(search.ok, true, JSON.stringify(search));
      assert.deepEqual(search.details.symbols ?? [], [], JSON.stringify(search.details));
      assert.ok(!JSON.stringify(search).includes(b.root), JSON.stringify(search));
    });
  } finally {
    await run(a, ["daemon", "stop"]);
    await a.remove();
    await b.remove();
    await Deno.remove(runtime, { recursive: true });
  }
});
