// `lspgate permissions` prints the narrowest `deno run` flags for a workspace; a run with exactly
// those flags (no -A, no write but lspgate's runtime folder, no net but its daemon's socket) must
// still answer through real servers.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { TempWorkspace } from "../helpers/workspace.ts";
import { daemonSocketPath, runtimeFolderPath } from "../../src/fs.ts";

const mod = fileURLToPath(new URL("../../mod.ts", import.meta.url));

async function printedCommand(root: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", mod, "permissions", "--root", root, "--role", "subagent"],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  const line = new TextDecoder().decode(out.stdout).split("\n").find((l) =>
    l.startsWith("deno run")
  );
  assert.ok(line, "a deno run line is printed");
  return line.split(" ");
}

Deno.test("a run with the printed minimal flags answers through deno lsp and refuses what it must", async () => {
  const ws = await TempWorkspace.copy("deno");
  try {
    const [, ...args] = await printedCommand(ws.root);
    assert.ok(!args.includes("-A") && !args.includes("--allow-all"));
    // No network: the daemon's socket alone. A sub-agent writes only lspgate's runtime folder.
    assert.deepEqual(args.filter((a) => a.startsWith("--allow-net")), [
      `--allow-net=unix:${daemonSocketPath()}`,
    ]);
    assert.deepEqual(args.filter((a) => a.startsWith("--allow-write")), [
      `--allow-write=${runtimeFolderPath()}`,
    ]);
    assert.ok(!args.some((a) => a.startsWith("--allow-sys")), "no system information");
    const requests = [
      { id: 1, action: "definition", file: "src/main.ts", line: 7, symbol: "greet" },
      { id: 2, action: "diagnostics", file: "src/main.ts" },
      { id: 3, action: "hover", file: "/etc/hostname", line: 1, column: 1 },
      { id: 4, action: "rename", file: "src/greet.ts", query: "greet", new_name: "x", apply: true },
    ];
    const child = new Deno.Command(Deno.execPath(), {
      args,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode(requests.map((r) => JSON.stringify(r)).join("\n") + "\n"),
    );
    await writer.close();
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const answers = new Map(
      new TextDecoder().decode(out.stdout).trim().split("\n").map((l) => {
        const answer = JSON.parse(l);
        return [answer.id, answer];
      }),
    );
    const definition = answers.get(1);
    assert.equal(definition.ok, true, JSON.stringify(definition));
    assert.equal(definition.details.locations[0].file, "src/greet.ts");
    assert.equal(
      definition.details.locations[0].line,
      (await ws.locate("src/greet.ts", "function greet")).line,
    );
    assert.equal(answers.get(2).ok, true, JSON.stringify(answers.get(2)));
    assert.equal(answers.get(2).details.files[0].status, "ok");
    assert.equal(answers.get(3).error.code, "OUTSIDE_WORKSPACE");
    assert.equal(answers.get(4).error.code, "ACTION_NOT_ALLOWED");
  } finally {
    await ws.remove();
  }
});
