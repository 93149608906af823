// The printed grant keeps the confinement: `deno task permissions`, run as the README says, names
// the sandbox `status` will name and grants what it needs (bubblewrap in --allow-run; for Landlock,
// this Deno, the launcher), and a run with exactly that grant confines its servers so.
import assert from "node:assert/strict";
import { join } from "node:path";
import { TempWorkspace } from "../helpers/workspace.ts";
import { LSPGATE_DIR } from "./fixture.ts";

async function output(args: string[], options: { cwd: string; stdin?: string }) {
  // Deno keeps an INIT_CWD it inherits (from `deno task test`, say); the user's shell has none.
  const env = Deno.env.toObject();
  delete env.INIT_CWD;
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: options.cwd,
    clearEnv: true,
    env: { ...env, NO_COLOR: "1", LSPGATE_NO_DAEMON: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(options.stdin ?? ""));
  await writer.close();
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return new TextDecoder().decode(out.stdout);
}

/** `deno task permissions … --json` from the workspace, as a user runs it. */
async function printed(root: string, flags: string[]) {
  const text = await output(
    ["task", "-q", "--config", join(LSPGATE_DIR, "deno.json"), "permissions", "--json", ...flags],
    { cwd: root },
  );
  return JSON.parse(text) as {
    command: string[];
    permissions: { run: string[]; notes: string[] };
  };
}

/** Status and a hover, run with exactly the printed command line. */
async function underGrant(ws: TempWorkspace, command: string[]) {
  const at = await ws.locate("src/main.ts", "greet(名前)");
  const requests = [
    { id: 1, action: "status" },
    { id: 2, action: "hover", file: "src/main.ts", ...at },
  ];
  const [deno, ...args] = command;
  assert.equal(deno, "deno");
  const text = await output(args, {
    cwd: ws.root,
    stdin: requests.map((r) => JSON.stringify(r) + "\n").join(""),
  });
  const answers = new Map(
    text.trim().split("\n").map((l) => {
      const answer = JSON.parse(l);
      return [answer.id, answer];
    }),
  );
  return { status: answers.get(1), hover: answers.get(2) };
}

Deno.test("deno task permissions where bubblewrap works: bwrap in --allow-run, the bubblewrap line, and the printed grant runs servers under it", async () => {
  const ws = await TempWorkspace.copy("deno");
  try {
    const { command, permissions } = await printed(ws.root, ["--root", ws.root]);
    const bwrap = permissions.run.find((p) => p.endsWith("/bwrap"));
    assert.ok(bwrap, `bwrap is not in --allow-run: ${permissions.run}`);
    assert.ok(
      permissions.notes.includes(
        "servers sandboxed: yes (bubblewrap: read-only workspace, no network, own PID namespace)",
      ),
      JSON.stringify(permissions.notes),
    );
    const { status, hover } = await underGrant(ws, command);
    assert.equal(status.details.sandboxBackend, "bwrap", JSON.stringify(status));
    assert.equal(hover.ok, true, JSON.stringify(hover));
    assert.match(hover.details.text, /greet/);
    assert.equal(hover.details.sandboxBackend, "bwrap");
  } finally {
    await ws.remove();
  }
});

Deno.test("deno task permissions --sandbox landlock: the launcher's Deno in --allow-run, the Landlock line, and the printed grant runs servers under it", async () => {
  const ws = await TempWorkspace.copy("deno");
  try {
    const { command, permissions } = await printed(ws.root, [
      "--root",
      ws.root,
      "--sandbox",
      "landlock",
    ]);
    assert.ok(permissions.run.includes(Deno.execPath()), JSON.stringify(permissions.run));
    assert.deepEqual(permissions.run.filter((p) => p.endsWith("/bwrap")), []);
    const line = permissions.notes.find((n) => n.startsWith("servers sandboxed: "));
    assert.match(line ?? "", /^servers sandboxed: yes \(Landlock ABI \d+: .*not enforced: /);
    assert.ok(
      permissions.notes.some((n) => /--allow-ffi=\/\S*libc\.so\.6 /.test(n)),
      JSON.stringify(permissions.notes),
    );
    const { status, hover } = await underGrant(ws, command);
    assert.equal(status.details.sandboxBackend, "landlock", JSON.stringify(status));
    // The printed line and status say the same.
    assert.equal(`servers sandboxed: ${status.details.sandbox}`, line);
    assert.equal(hover.ok, true, JSON.stringify(hover));
    assert.match(hover.details.text, /greet/);
  } finally {
    await ws.remove();
  }
});
