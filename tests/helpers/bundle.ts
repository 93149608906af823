// `deno task bundle` as deno.json spells it, for the tests of the one shipped file: its commands
// pointed at a folder of the test's own.
import assert from "node:assert/strict";
import { basename, dirname, join } from "node:path";
import { REPO_ROOT } from "./program.ts";
import { V8_FLAGS_ARG } from "../../src/v8_flags.ts";

/**
 * Each `&&`-joined command of the bundle task as `deno` arguments, writing beside `output`: the
 * bundle itself to `output`, its companion (dist/lspgate_libc.js) and parsers into its folder.
 */
export async function bundleSteps(output: string): Promise<string[][]> {
  const config = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  const beside = (path: string) => join(dirname(output), basename(path));
  return (config.tasks.bundle as string).split(" && ").map((step, i) => {
    const [deno, ...args] = step.split(" ");
    assert.equal(deno, "deno");
    if (args[0] === "bundle") {
      const at = args.indexOf("-o");
      assert.ok(at > 0, `the bundle task names its output with -o: ${config.tasks.bundle}`);
      args[at + 1] = i === 0 ? output : beside(args[at + 1]);
      return ["bundle", "--quiet", ...args.slice(1)];
    }
    // The parsers go beside the bundle: dist/parsers for dist/lspgate.js.
    return args.map((arg) =>
      arg === "dist/parsers"
        ? join(dirname(output), "parsers")
        : arg === "dist/lspgate.js"
        ? output
        : arg === "--allow-write=dist" || arg === "--allow-read=dist"
        ? `${arg.slice(0, -"dist".length)}${dirname(output)}`
        : arg
    );
  });
}

/**
 * Builds the bundle into `out` as the task does, and with `companion` its companion beside it
 * (the parsers are not copied); the bundle's path.
 */
export async function buildBundle(out: string, { companion = false } = {}): Promise<string> {
  const bundle = join(out, "lspgate.js");
  const companionStep = (args: string[]) => args.some((arg) => arg.endsWith("/lspgate_libc.js"));
  const steps = (await bundleSteps(bundle)).filter((args) =>
    !args.some((arg) => arg.endsWith("ship_parsers.ts")) && (companion || !companionStep(args))
  );
  for (const args of steps) {
    const built = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: REPO_ROOT,
      stderr: "piped",
    }).output();
    assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
  }
  return bundle;
}

/**
 * `deno run` arguments for the bundle under the README's grant for it (read, env, run; `grants`
 * adds more, a write or the runtime folder's), ending with the bundle: lspgate's own flags follow.
 */
export function bundleRunArgs(bundle: string, grants: string[] = []): string[] {
  return [
    "run",
    "--unstable-worker-options",
    V8_FLAGS_ARG,
    "--allow-read",
    "--allow-env",
    "--allow-run",
    ...grants,
    bundle,
  ];
}
