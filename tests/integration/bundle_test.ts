// The shipped artifact: `deno bundle` makes one file, which serves the JSON-lines protocol and
// starts its own Workers (client and watcher) from itself.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TempWorkspace } from "../helpers/workspace.ts";

const mod = fileURLToPath(new URL("../../mod.ts", import.meta.url));

Deno.test("the deno bundle artifact answers through deno lsp from its own Workers", async () => {
  const ws = await TempWorkspace.copy("deno");
  const out = await Deno.makeTempDir({ prefix: "lspgate-bundle-" });
  try {
    const bundle = join(out, "lspgate.js");
    const built = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", mod, "-o", bundle],
      stderr: "piped",
    }).output();
    assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--unstable-worker-options",
        "--allow-read",
        "--allow-env",
        "--allow-run",
        bundle,
        "--root",
        ws.root,
      ],
      cwd: out,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(
      JSON.stringify({
        id: 1,
        action: "definition",
        file: "src/main.ts",
        line: 7,
        symbol: "greet",
      }) +
        "\n",
    ));
    await writer.close();
    const result = await child.output();
    assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
    const answer = JSON.parse(new TextDecoder().decode(result.stdout).trim());
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.deepEqual(
      answer.details.locations.map((l: { file: string; line: number }) => [l.file, l.line]),
      [["src/greet.ts", (await ws.locate("src/greet.ts", "function greet")).line]],
    );
  } finally {
    await ws.remove();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("the bundle's `permissions` prints a command that runs the bundle, and it answers", async () => {
  const ws = await TempWorkspace.copy("deno");
  const out = await Deno.makeTempDir({ prefix: "lspgate-bundle-" });
  const runtime = await Deno.makeTempDir({ prefix: "lspgate-bundle-rt-" });
  await Deno.chmod(runtime, 0o700);
  const env = { XDG_RUNTIME_DIR: runtime, NO_COLOR: "1" };
  try {
    const bundle = join(out, "lspgate.js");
    const built = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", mod, "-o", bundle],
      stderr: "piped",
    }).output();
    assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
    const printed = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--unstable-worker-options",
        "--allow-read",
        "--allow-env",
        "--allow-run",
        bundle,
        "permissions",
        "--json",
        "--root",
        ws.root,
      ],
      cwd: out,
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(printed.code, 0, new TextDecoder().decode(printed.stderr));
    const { command } = JSON.parse(new TextDecoder().decode(printed.stdout)) as {
      command: string[];
    };
    // It named a mod.ts beside the bundle, which is not there (a helper's find).
    assert.ok(command.includes(bundle), command.join(" "));
    assert.ok(command.includes("--unstable-worker-options"), command.join(" "));
    const child = new Deno.Command(Deno.execPath(), {
      args: command.slice(1),
      cwd: out,
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(
      JSON.stringify({
        id: 1,
        action: "definition",
        file: "src/main.ts",
        line: 7,
        symbol: "greet",
      }) +
        "\n",
    ));
    await writer.close();
    const result = await child.output();
    assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
    const answer = JSON.parse(new TextDecoder().decode(result.stdout).trim());
    assert.equal(answer.ok, true, JSON.stringify(answer));
  } finally {
    await ws.remove();
    await Deno.remove(out, { recursive: true });
    await Deno.remove(runtime, { recursive: true });
  }
});
