// `deno task test`: installs the language servers the tests need if they are missing, then runs
// `deno test` with them on PATH. Extra arguments go to `deno test` (e.g. a file or --filter).
//
// rust-analyzer, the one server built from source (~16 minutes on 2 cores the first time), is
// built in a process of its own while the other tests run; the tests that need it run after it,
// in a second pass, and the last line sums both passes up as `deno test` does.
import { stripVTControlCharacters } from "node:util";
import {
  ensureBubblewrap,
  ensureNativeServers,
  ensureServers,
  ensureTypeScript7,
  RUST_TESTS,
  startRustAnalyzerBuild,
  TOOLS_BIN,
} from "./tools.ts";

const servers = await ensureServers();
// TypeScript 7 is a user-installed server like the others: on PATH (a project's own runs only for
// a trusted root).
const path = `${servers}:${await ensureTypeScript7()}/.bin`;
await ensureBubblewrap(path);
// A full run builds a missing rust-analyzer in the background; a chosen test that needs it builds
// it (or awaits a build underway) itself.
const rustAnalyzer = Deno.args.length === 0 ? await startRustAnalyzerBuild() : undefined;
// clangd, gopls: a server that cannot be had here is said now, and its conformance row fails
// saying why.
await ensureNativeServers();

/** One `deno test` run; its output passed through, its summary counted. */
async function denoTest(args: string[], withoutRust = false): Promise<Summary> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", ...args],
    // call and hook start a workspace daemon by default; tests of other things use none (each
    // temp workspace would leave one running for its idle time). The daemon's own tests turn it
    // on.
    env: {
      PATH: `${path}:${TOOLS_BIN}`,
      LSPGATE_NO_DAEMON: "1",
      ...(withoutRust ? { LSPGATE_RUST_TESTS: "without" } : {}),
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let tail = "";
  const summary: Summary = { passed: 0, failed: 0, ignored: 0 };
  for await (const chunk of child.stdout) {
    await Deno.stdout.write(chunk);
    tail = (tail + new TextDecoder().decode(chunk)).slice(-4096);
  }
  // The last summary line: `ok | 12 passed (3 steps) | 0 failed | 1 ignored (…)`.
  const plain = stripVTControlCharacters(tail);
  const line = plain.split("\n").reverse().find((l) => /^(ok|FAILED) \| \d+ passed/.test(l));
  for (const key of ["passed", "failed", "ignored"] as const) {
    summary[key] = Number(line?.match(new RegExp(`(\\d+) ${key}`))?.[1] ?? 0);
  }
  const { code } = await child.status;
  // A run that ended without its summary (a crash, a load error) counts as a failure.
  if (code !== 0 && summary.failed === 0) summary.failed = 1;
  return summary;
}

interface Summary {
  passed: number;
  failed: number;
  ignored: number;
}

let total: Summary;
if (rustAnalyzer === undefined) {
  // rust-analyzer is there, or a chosen test: one run.
  total = await denoTest(Deno.args);
} else {
  const first = await denoTest([], true);
  console.log("tests: the tests that need rust-analyzer, once its build is done");
  await rustAnalyzer;
  const second = await denoTest([...RUST_TESTS.files, "--filter", RUST_TESTS.filter]);
  total = {
    passed: first.passed + second.passed,
    failed: first.failed + second.failed,
    ignored: first.ignored + second.ignored,
  };
  console.log(
    `${total.failed ? "FAILED" : "ok"} | ${total.passed} passed | ${total.failed} failed | ` +
      `${total.ignored} ignored (both passes)`,
  );
}
Deno.exit(total.failed ? 1 : 0);
