// Where bubblewrap cannot be had, the default `sandbox: "auto"` runs servers unconfined, and
// everything an agent author or a reviewer reads says so: status, every answer's
// `details.sandboxed`, the `permissions` output, and the doctor.
import assert from "node:assert/strict";
import { join } from "node:path";
import { TempWorkspace } from "../helpers/workspace.ts";

const MOD = join(import.meta.dirname!, "..", "..", "mod.ts");

Deno.test("sandbox auto without bubblewrap: status, every answer, permissions and doctor say servers are NOT confined", async () => {
  const ws = await TempWorkspace.copy("deno");
  // A PATH holding deno and nothing else: no bwrap anywhere lspgate looks.
  const bin = await Deno.makeTempDir({ prefix: "lspgate_nobwrap_" });
  await Deno.symlink(Deno.execPath(), join(bin, "deno"));
  const run = async (args: string[], stdin?: string) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MOD, ...args, "--root", ws.root],
      env: { PATH: bin, LSPGATE_TOOLS_DIR: bin, NO_COLOR: "1", LSPGATE_NO_DAEMON: "1" },
      clearEnv: true,
      stdin: stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (stdin !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(stdin));
      await writer.close();
    }
    const out = await child.output();
    return new TextDecoder().decode(out.stdout);
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
    assert.equal(status.details.sandboxed, false);
    assert.match(status.content[0].text, /servers sandboxed: no: servers are NOT confined/);
    assert.match(status.details.sandbox, /bubblewrap is not installed/);
    assert.equal(hover.ok, true, JSON.stringify(hover));
    assert.equal(hover.details.sandboxed, false);

    const permissions = JSON.parse(await run(["permissions", "--json"]));
    assert.ok(
      permissions.permissions.notes.some((n: string) =>
        /servers sandboxed: no: servers are NOT confined/.test(n)
      ),
      JSON.stringify(permissions.permissions.notes),
    );
    assert.deepEqual(permissions.permissions.run.filter((p: string) => p.endsWith("/bwrap")), []);

    const doctor = await run(["doctor"]);
    assert.match(doctor, /NOT confined|not installed/i);
  } finally {
    await ws.remove();
    await Deno.remove(bin, { recursive: true });
  }
});
