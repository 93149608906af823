#!/usr/bin/env node
// `lspgate` from npm: runs the bundle beside this file (dist/lspgate.js, its Landlock launcher and
// watcher process in dist/lspgate_libc.js, its parsers in dist/parsers/) with the Deno of the `deno`
// npm package, under `deno task start`'s grant (read, the environment, run the servers, and
// whatever else the task grants): what the README's bundle command runs. Signals are passed on; lspgate's exit code is this one's.
import { spawn } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * `$NAME` and `${NAME}` in a flag, from `env`, as deno task expands them: an unset variable is
 * empty, as it is when lspgate names its runtime folder from the same variables (a fallback here,
 * such as the OS's user name for USER, would grant a folder lspgate never uses).
 */
export function expand(flag, env = process.env) {
  return flag.replace(
    /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (_, braced, bare) => env[braced ?? bare] ?? "",
  );
}

const here = dirname(fileURLToPath(import.meta.url));
const bundle = join(here, "..", "dist", "lspgate.js");

/**
 * The `deno run` flags: the bundle's Worker flag, then deno.json's start task's grant as
 * `deno task pack` wrote it (dist/grant.json), its variables expanded as deno task would.
 */
export function grant(env = process.env) {
  const flags = JSON.parse(readFileSync(join(here, "..", "dist", "grant.json"), "utf8"));
  return ["--unstable-worker-options", ...flags.map((flag) => expand(flag, env))];
}

// Run as the program (npm's bin link, or node bin/lspgate.mjs), not imported for GRANT.
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  // The deno package resolves (and links on first use) its platform's binary.
  const deno = createRequire(import.meta.url)("deno/install_api.cjs").runInstall();
  const child = spawn(deno, ["run", ...grant(), bundle, ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => child.kill(signal));
  }
  child.on("error", (error) => {
    console.error(`lspgate: could not start Deno (${deno}): ${error.message}`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
