// The shipped artifact: `deno bundle` makes one file, which serves the JSON-lines protocol and
// starts its own Workers (client and watcher) from itself.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TempWorkspace } from "../helpers/workspace.ts";
import { pipeThrough } from "../helpers/line_process.ts";

const mod = fileURLToPath(new URL("../../mod.ts", import.meta.url));

const DEFINITION = { id: 1, action: "definition", file: "src/main.ts", line: 7, symbol: "greet" };

/** `deno bundle` of mod.ts into `out`/lspgate.js; its path. */
async function buildBundle(out: string): Promise<string> {
  const bundle = join(out, "lspgate.js");
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", mod, "-o", bundle],
    stderr: "piped",
  }).output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
  return bundle;
}

/** Runs `deno ARGS` in `out` with the definition request on stdin; its one answer. */
async function askDefinition(args: string[], out: string, env?: Record<string, string>) {
  const input = new TextEncoder().encode(JSON.stringify(DEFINITION) + "\n");
  const result = await pipeThrough(Deno.execPath(), args, input, { cwd: out, env });
  assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
  return JSON.parse(new TextDecoder().decode(result.stdout).trim());
}

Deno.test("the deno bundle artifact answers through deno lsp from its own Workers", async () => {
  const ws = await TempWorkspace.copy("deno");
  const out = await Deno.makeTempDir({ prefix: "lspgate-bundle-" });
  try {
    const bundle = await buildBundle(out);
    const grant = ["--unstable-worker-options", "--allow-read", "--allow-env", "--allow-run"];
    const answer = await askDefinition(["run", ...grant, bundle, "--root", ws.root], out);
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
    const bundle = await buildBundle(out);
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
    const answer = await askDefinition(command.slice(1), out, env);
    assert.equal(answer.ok, true, JSON.stringify(answer));
  } finally {
    await ws.remove();
    await Deno.remove(out, { recursive: true });
    await Deno.remove(runtime, { recursive: true });
  }
});
