import assert from "node:assert/strict";
import { join } from "node:path";

const MOD = join(import.meta.dirname!, "..", "..", "mod.ts");

async function doctor(root: string, flags: string[]): Promise<Record<string, unknown>> {
  const runtime = await Deno.makeTempDir({ prefix: "lspgate_doctor_rt_" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MOD, "doctor", "--json", "--root", root, ...flags],
      env: { XDG_RUNTIME_DIR: runtime },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    await Deno.remove(runtime, { recursive: true });
  }
}

Deno.test("doctor reports config files, servers found or missing with install hints, sandbox, permissions, daemon and the role's actions", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_doctor_" }));
  try {
    await Deno.writeTextFile(join(root, ".lspgate.jsonc"), "{}\n");
    const report = await doctor(root, ["--role", "subagent"]);
    assert.equal(report.root, root);
    assert.equal(report.role, "subagent");
    assert.deepEqual(
      (report.configFiles as { kind: string; read: boolean }[]).find((f) => f.kind === "workspace"),
      { path: join(root, ".lspgate.jsonc"), kind: "workspace", read: true },
    );
    const servers = report.servers as { id: string; installed: boolean; installHint: string }[];
    // The test runner installs pyright; jdtls is a data-only adapter nobody installed here.
    assert.equal(servers.find((s) => s.id === "pyright")?.installed, true);
    const jdtls = servers.find((s) => s.id === "jdtls")!;
    assert.equal(jdtls.installed, false);
    assert.match(jdtls.installHint, /jdtls/);
    const sandbox = report.sandbox as { usable: boolean; bwrap?: string };
    assert.equal(sandbox.usable, true, "bubblewrap is installed by the test runner");
    assert.equal((report.permissions as Record<string, string>)["write (the root)"], "granted");
    // The start task's grants are named too, not only the broad ones it does not give.
    for (const narrow of ["write (lspgate's runtime folder)", "net (the daemon's socket)"]) {
      assert.ok(narrow in (report.permissions as Record<string, string>), narrow);
    }
    assert.equal((report.daemon as { running: boolean }).running, false);
    const actions = report.actions as { allowed: string[]; refused: { action: string }[] };
    assert.ok(actions.allowed.includes("definition"));
    assert.ok(actions.allowed.includes("rename (preview only)"));
    assert.deepEqual(
      actions.refused.map((r) => r.action).sort(),
      [
        "code_actions that writes",
        "format that writes",
        "rename that writes",
        "rename_file that writes",
        "request that writes",
        "restart",
      ],
    );
    const main = await doctor(root, ["--allow-mutations"]);
    assert.deepEqual((main.actions as { refused: unknown[] }).refused, []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
