#!/usr/bin/env node
// `lspgate` from npm: runs the bundle beside this file (dist/lspgate.js, its parsers in
// dist/parsers/) with the Deno of the `deno` npm package, under `deno task start`'s grant (read,
// the environment, run the servers; no writes, no network): exactly what the README's bundle
// command runs. Signals are passed on; lspgate's exit code is this one's.
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The `deno run` flags: the start task's grant (a test holds them equal to deno.json's). */
export const GRANT = [
  "--unstable-worker-options",
  "--v8-flags=--max-semi-space-size=1,--heap-growing-percent=50",
  "--allow-read",
  "--allow-env",
  "--allow-run",
];

const here = dirname(fileURLToPath(import.meta.url));
const bundle = join(here, "..", "dist", "lspgate.js");

// Run as the program (npm's bin link, or node bin/lspgate.mjs), not imported for GRANT.
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  // The deno package resolves (and links on first use) its platform's binary.
  const deno = createRequire(import.meta.url)("deno/install_api.cjs").runInstall();
  const child = spawn(deno, ["run", ...GRANT, bundle, ...process.argv.slice(2)], {
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
