// Files planted in lspgate's runtime folder by another process of the user (a symlink at its
// socket, journal, lock, sandbox folder; another user's folder; an open one) are never followed or
// used: PERMISSION_DENIED naming the file, the link's target untouched, lspgate serving on. Run as
// the README and deno.json give lspgate (never -A), real deno lsp on the deno fixture.
import assert from "node:assert/strict";
import { join } from "node:path";
import { turnStateName } from "../../src/frontends/turn_state.ts";
import { answers, post, readmeWorkspace } from "../helpers/readme_grant.ts";

Deno.test("a symlink planted at each runtime-folder file is never followed: its target untouched, the error names it", async () => {
  const rg = await readmeWorkspace();
  const folder = join(rg.runtime, "lspgate");
  const victim = join(rg.runtime, "victim.txt");
  try {
    await Deno.mkdir(folder, { mode: 0o700 });
    await Deno.writeTextFile(victim, "keep\n");
    const session = `s-${crypto.randomUUID()}`;
    const turn = join(folder, await turnStateName(session, await Deno.realPath(rg.ws.root)));
    const file = join(rg.ws.root, "src/greet.ts");
    // The socket first: the hooks after it start a daemon, whose socket is then there.
    for (const planted of [join(folder, "daemon.sock"), turn, `${turn}.lock`]) {
      await Deno.symlink(victim, planted);
      const name = planted.slice(folder.length + 1).replace(/\./g, "\\.");
      if (planted.endsWith(".sock")) {
        // The daemon's socket: the call is answered in-process, saying why.
        const out = await rg.task(["call", "status"]);
        assert.equal(out.code, 0, out.stderr);
        assert.match(out.stderr, new RegExp(`PERMISSION_DENIED: .*${name} .*is a symlink`));
      } else {
        const out = await rg.hook("PostToolUse", post(session, file));
        assert.equal(out.code, 0, out.stderr);
        assert.match(
          out.stderr,
          new RegExp(`^lspgate hook: PERMISSION_DENIED: .*${name} .*symlink`),
        );
      }
      assert.equal(await Deno.readTextFile(victim), "keep\n");
      assert.ok((await Deno.lstat(planted)).isSymlink);
      await Deno.remove(planted);
    }
  } finally {
    await rg.cleanup();
  }
});

/** Every path under `dir`, relative and sorted, with each file's text. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = join(at, entry.name);
      const text = entry.isFile ? `: ${await Deno.readTextFile(path)}` : "";
      out.push(path.slice(dir.length + 1) + text);
      if (entry.isDirectory) await walk(path);
    }
  };
  await walk(dir);
  return out.sort();
}

Deno.test("under --sandbox landlock, a symlink, another user's folder or an open one at the runtime folder or its sandbox folder: PERMISSION_DENIED naming it, no server started, nothing made or swept in the target, lspgate keeps serving", async () => {
  const rg = await readmeWorkspace();
  const folder = join(rg.runtime, "lspgate");
  const sandbox = join(folder, "sandbox");
  const victim = join(rg.runtime, "victim");
  const requests = [
    { id: 1, action: "hover", file: "src/greet.ts", line: 2, symbol: "greet", timeout: 60_000 },
    { id: 2, action: "status" },
  ].map((r) => JSON.stringify(r) + "\n").join("");
  try {
    // The target holds a dead lspgate's scratch folder, which the launcher's sweep would remove.
    const gone = new Deno.Command("true").spawn();
    await gone.status;
    await Deno.mkdir(join(victim, `${gone.pid}-0badf00d`, "home"), { recursive: true });
    const namespace = await Deno.readLink("/proc/self/ns/pid");
    await Deno.writeTextFile(join(victim, `${gone.pid}-0badf00d`, "owner"), namespace);
    const before = await tree(victim);
    const cases: { name: string; path: string; plant: () => Promise<void>; why: RegExp }[] = [
      {
        name: "sandbox a symlink",
        path: sandbox,
        plant: () => Deno.symlink(victim, sandbox),
        why: /^\S+ in lspgate's runtime folder is a symlink: lspgate does not use it/,
      },
      {
        name: "the runtime folder a symlink",
        path: folder,
        plant: async () => {
          await Deno.remove(folder, { recursive: true });
          await Deno.symlink(victim, folder);
        },
        why: /^The runtime folder \S+ is not a private folder of this user .*: it is a symlink;/,
      },
      {
        name: "sandbox open to others",
        path: sandbox,
        plant: async () => {
          await Deno.mkdir(sandbox, { mode: 0o700 });
          await Deno.chmod(sandbox, 0o755);
        },
        why: /^\S+ in lspgate's runtime folder is not private to this user \(mode 0755\)/,
      },
      {
        name: "sandbox another user's",
        path: sandbox,
        plant: async () => {
          await Deno.mkdir(sandbox, { mode: 0o700 });
          await Deno.chown(sandbox, 65534, 65534);
        },
        why: /^\S+ in lspgate's runtime folder is not private to this user \(owned by uid 65534\)/,
      },
    ];
    for (const c of cases) {
      await Deno.remove(folder, { recursive: true }).catch(() => {});
      await Deno.mkdir(folder, { mode: 0o700 });
      await c.plant();
      const out = await rg.task(["--sandbox", "landlock"], requests);
      assert.equal(out.code, 0, out.stderr);
      const got = answers(out.stdout);
      const error = got.get(1)?.error;
      assert.equal(error?.code, "PERMISSION_DENIED", `${c.name}: ${JSON.stringify(got.get(1))}`);
      assert.match(error.message, c.why);
      assert.ok(error.message.includes(`${c.path} `), error.message);
      assert.equal(error.data?.path, c.path);
      assert.equal(got.get(2)?.ok, true, `${c.name}: status unanswered: ${out.stdout}`);
      assert.deepEqual(await tree(victim), before, `${c.name}: the target was changed`);
    }
    // Control: the runtime folder lspgate's own again, the same hover is answered under Landlock.
    await Deno.remove(folder, { recursive: true });
    const out = await rg.task(["--sandbox", "landlock"], requests);
    const hover = answers(out.stdout).get(1);
    assert.equal(hover?.ok, true, JSON.stringify(hover));
    assert.match(hover.content![0].text, /function greet\(name: string\): string/);
    assert.deepEqual(await tree(victim), before);
  } finally {
    await rg.cleanup();
  }
});

Deno.test("a symlink planted at an apply's journal or its lock file, or another user's lock file: the rename through deno lsp answers PERMISSION_DENIED naming it, the link's target and every workspace file byte-identical", async () => {
  const rg = await readmeWorkspace();
  const folder = join(rg.runtime, "lspgate");
  const victim = join(rg.runtime, "victim.txt");
  const rename = JSON.stringify({
    id: 1,
    action: "rename",
    file: "src/greet.ts",
    line: 2,
    symbol: "greet",
    new_name: "welcome",
    apply: true,
    timeout: 60_000,
  }) + "\n";
  try {
    await Deno.mkdir(folder, { mode: 0o700 });
    await Deno.writeTextFile(victim, "keep\n");
    const root = new TextEncoder().encode(await Deno.realPath(rg.ws.root));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", root));
    const hex = [...digest.slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
    const before = await tree(rg.ws.root);
    for (const name of [`apply-${hex}.json`, `apply-${hex}.lock`]) {
      const planted = join(folder, name);
      await Deno.remove(planted).catch(() => {});
      await Deno.symlink(victim, planted);
      const out = await rg.mutations([], rename);
      assert.equal(out.code, 0, out.stderr);
      const answer = answers(out.stdout).get(1);
      assert.equal(answer?.error?.code, "PERMISSION_DENIED", `${name}: ${JSON.stringify(answer)}`);
      assert.ok(answer.error.message.startsWith(`${planted} is not a file lspgate wrote (a link`));
      assert.equal(answer.error.data?.path, planted);
      assert.equal(await Deno.readTextFile(victim), "keep\n");
      assert.ok((await Deno.lstat(planted)).isSymlink);
      assert.deepEqual(await tree(rg.ws.root), before, `${name}: a workspace file changed`);
      await Deno.remove(planted);
    }
    // Another user's lock file (as root may open it): refused as well, though the grant gives
    // lspgate no user id (no --allow-sys, and /proc/self/status needs --allow-all).
    const lock = join(folder, `apply-${hex}.lock`);
    await Deno.writeTextFile(lock, "", { mode: 0o600 });
    await Deno.chown(lock, 65534, 65534);
    const refused = answers((await rg.mutations([], rename)).stdout).get(1);
    assert.equal(refused?.error?.code, "PERMISSION_DENIED", JSON.stringify(refused));
    assert.equal(refused.error.data?.path, lock);
    assert.deepEqual(
      await tree(rg.ws.root),
      before,
      "another user's lock: a workspace file changed",
    );
    await Deno.remove(lock);
    // Control: without them the same apply renames.
    const out = await rg.mutations([], rename);
    assert.equal(answers(out.stdout).get(1)?.ok, true, out.stdout);
    assert.match(await Deno.readTextFile(join(rg.ws.root, "src/greet.ts")), /function welcome\(/);
  } finally {
    await rg.cleanup();
  }
});
