// Wall 3, Deno's own permissions: lspgate run with read on the root and itself only (no run, no
// write, no net) answers outside paths OUTSIDE_WORKSPACE and a needed server PERMISSION_DENIED
// naming --allow-run — never a crash or a stack trace — keeps serving, and exits 0 on EOF.
import assert from "node:assert/strict";
import { join } from "node:path";
import { AttackFixture, LSPGATE_DIR } from "./fixture.ts";

interface Line {
  id: number | null;
  ok: boolean;
  error?: { code: string; message: string };
}

Deno.test("Deno wall: --allow-read=<root>,<lspgate> without --allow-run keeps serving", async () => {
  const fx = await AttackFixture.create();
  let passed = false;
  try {
    const requests: [Record<string, unknown>, string, string[]][] = [
      [
        { action: "hover", file: "../outside/secret.ts", line: 1, column: 1 },
        "OUTSIDE_WORKSPACE",
        [],
      ],
      [{ action: "hover", file: fx.secret, line: 1, column: 1 }, "OUTSIDE_WORKSPACE", []],
      // Deno checks the path as written: a symlink inside passes its check; wall 1 stops it.
      [{ action: "hover", file: "src/leak.ts", line: 1, column: 1 }, "OUTSIDE_WORKSPACE", []],
      [{ action: "hover", file: "linkdir/secret.ts", line: 1, column: 1 }, "OUTSIDE_WORKSPACE", []],
      [
        { action: "hover", file: "file:///etc/passwd", line: 1, column: 1 },
        "OUTSIDE_WORKSPACE",
        [],
      ],
      [{ action: "diagnostics", file: "../**/*.ts" }, "OUTSIDE_WORKSPACE", []],
      [{ action: "hover", file: "src/a.ts", line: 1, column: 14 }, "PERMISSION_DENIED", [
        "--allow-run",
      ]],
      [{ action: "format", file: "src/a.ts", apply: true }, "ACTION_NOT_ALLOWED", [
        "--allow-mutations",
      ]],
      [{ action: "status" }, "", []],
    ];
    const input = [
      ...requests.map(([request], i) => JSON.stringify({ id: i + 1, ...request })),
      "this is not JSON",
      JSON.stringify({ id: 99, action: "status" }),
    ].join("\n") + "\n";
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        `--allow-read=${fx.root},${LSPGATE_DIR}`,
        "--allow-env",
        join(LSPGATE_DIR, "mod.ts"),
        "--root",
        fx.root,
      ],
      cwd: LSPGATE_DIR,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    await writer.close(); // EOF: lspgate must shut down and exit 0
    const output = await child.output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, `exit ${output.code}; stderr:\n${stderr}`);
    assert.doesNotMatch(stderr, /Uncaught|^\s+at /m, `a stack trace on stderr:\n${stderr}`);
    fx.assertNoLeak(stdout + stderr, "the Deno-wall run");

    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line) as Line);
    assert.equal(lines.length, requests.length + 2, stdout);
    const byId = new Map(lines.map((line) => [line.id, line]));
    requests.forEach(([request, code, mentions], i) => {
      const line = byId.get(i + 1);
      assert.ok(line, `no answer to ${JSON.stringify(request)}`);
      if (code === "") {
        assert.equal(line.ok, true, JSON.stringify(line));
        return;
      }
      assert.equal(line.error?.code, code, `${JSON.stringify(request)}: ${JSON.stringify(line)}`);
      for (const word of mentions) {
        assert.ok(line.error?.message.includes(word), line.error?.message);
      }
    });
    assert.equal(byId.get(null)?.error?.code, "INVALID_JSON");
    assert.equal(byId.get(99)?.ok, true, "it stopped serving after a bad line");
    passed = true;
  } finally {
    await fx.remove({ check: passed });
  }
});
