// Where bubblewrap cannot be had, the default `sandbox: "auto"` confines servers with Landlock,
// and everything an agent author or a reviewer reads says so: status, every answer's
// `details.sandboxBackend`, the `permissions` output (whose printed grant keeps the confinement),
// and the doctor. `--sandbox none` is said as NOT confined.
import assert from "node:assert/strict";
import { join } from "node:path";
import { runToEnd } from "../helpers/daemon.ts";
import { TempWorkspace } from "../helpers/workspace.ts";

const MOD = join(import.meta.dirname!, "..", "..", "mod.ts");

Deno.test("sandbox auto without bubblewrap: Landlock, and status, every answer, permissions and doctor say so", async () => {
  const ws = await TempWorkspace.copy("deno");
  // A PATH holding deno and nothing else: no bwrap anywhere lspgate looks.
  const bin = await Deno.makeTempDir({ prefix: "lspgate_nobwrap_" });
  await Deno.symlink(Deno.execPath(), join(bin, "deno"));
  const run = async (args: string[], stdin?: string, deno = ["run", "-A", MOD]) => {
    const env = { PATH: bin, LSPGATE_TOOLS_DIR: bin, NO_COLOR: "1", LSPGATE_NO_DAEMON: "1" };
    const out = await runToEnd(Deno.execPath(), [...deno, ...args, "--root", ws.root], {
      env,
      clearEnv: true,
      stdin,
    });
    return out.stdout;
  };
  try {
    const at = await ws.locate("src/main.ts", "greet(名前)");
    const lines = (await run(
      [],
      [
        JSON.stringify({ id: 1, action: "status" }),
        JSON.stringify({ id: 2, action: "hover", file: "src/main.ts", ...at }),
      ].join("\n") + "\n",
    )).trim().split("\n").map((l) => JSON.parse(l));
    const status = lines.find((l) => l.id === 1);
    const hover = lines.find((l) => l.id === 2);
    assert.equal(status.details.sandboxed, true);
    assert.equal(status.details.sandboxBackend, "landlock");
    assert.match(status.content[0].text, /servers sandboxed: yes \(Landlock ABI \d+/);
    assert.match(status.details.sandbox, /bubblewrap not used: bubblewrap is not installed/);
    assert.equal(hover.ok, true, JSON.stringify(hover));
    assert.equal(hover.details.sandboxBackend, "landlock");

    const permissions = JSON.parse(await run(["permissions", "--json"]));
    assert.ok(
      permissions.permissions.notes.some((n: string) =>
        /servers sandboxed: yes \(Landlock ABI \d+/.test(n)
      ),
      JSON.stringify(permissions.permissions.notes),
    );
    assert.deepEqual(permissions.permissions.run.filter((p: string) => p.endsWith("/bwrap")), []);
    // The launcher is this Deno: the printed grant may run it, and that grant keeps Landlock.
    assert.ok(permissions.permissions.run.includes(Deno.execPath()), permissions.command);
    const [, ...printed] = permissions.command as string[];
    const rootAt = printed.indexOf("--root");
    const underGrant = (await run(
      [],
      JSON.stringify({ id: 1, action: "hover", file: "src/main.ts", ...at }) + "\n",
      printed.slice(0, rootAt),
    )).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(underGrant[0].ok, true, JSON.stringify(underGrant[0]));
    assert.equal(underGrant[0].details.sandboxBackend, "landlock");

    const doctor = await run(["doctor"]);
    assert.match(doctor, /Sandbox \(auto, in force: landlock\)/);
    assert.match(doctor, /not enforced: no PID namespace/);
    assert.match(doctor, /bubblewrap not used: bubblewrap is not installed/);

    const none =
      (await run(["--sandbox", "none"], JSON.stringify({ id: 1, action: "status" }) + "\n"))
        .trim();
    assert.match(
      JSON.parse(none).content[0].text,
      /servers sandboxed: no: servers are NOT confined/,
    );
  } finally {
    await ws.remove();
    await Deno.remove(bin, { recursive: true });
  }
});
