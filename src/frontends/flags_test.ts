// lspgate reads its command line as node:util's parseArgs (strict, positionals allowed) reads it,
// without loading node:util (see posix_path.ts): every sequence of up to three arguments from a
// set of awkward ones gets the same values and positionals, or the same error.
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { FLAG_VALUES, FLAGS, readArgs, SHORT_FLAGS } from "./flags.ts";

const OPTIONS = Object.fromEntries(
  Object.entries(FLAGS).map(([name, option]) => {
    const short = Object.keys(SHORT_FLAGS).find((letter) => SHORT_FLAGS[letter] === name);
    return [name, short ? { ...option, short } : option];
  }),
);

/** node:util's answer, its errors said as lspgate says them. */
function byNode(args: string[]): string {
  try {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: OPTIONS as never,
    });
    return JSON.stringify([Object.entries(values).sort(), positionals]);
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      return `unknown flag ${/Unknown option '([^']+)'/.exec(message)![1]}`;
    }
    assert.equal(code, "ERR_PARSE_ARGS_INVALID_OPTION_VALUE", message);
    const flag = /Option '(?:-\w, )?(--[\w-]+)/.exec(message)![1];
    if (/does not take an argument/.test(message)) return `${flag} takes no value`;
    const shape = FLAG_VALUES[flag.slice(2)];
    return `${flag} needs a value (${flag} ${shape}; ${flag}=${shape} when it starts with -)`;
  }
}

function byLspgate(args: string[]): string {
  try {
    const { values, positionals } = readArgs(args);
    return JSON.stringify([Object.entries(values).sort(), positionals]);
  } catch (error) {
    return (error as Error).message;
  }
}

const ARGS = [
  "",
  "-",
  "--",
  "x",
  "a=b",
  "-h",
  "-hh",
  "-hx",
  "-x",
  "-5",
  "-h=1",
  "--help",
  "--help=1",
  "--root",
  "--root=",
  "--root=-x",
  "--ROOT",
  "--trust",
  "--trust=yes",
  "--bogus=1",
  "--=",
  "--=x",
  "---x",
  "--constructor",
  "--__proto__",
  "--memory-budget",
  "512",
];

Deno.test("the command line is read as node:util's parseArgs reads it, argument for argument", () => {
  let compared = 0;
  const sequences: string[][] = [[]];
  for (let length = 1; length <= 3; length++) {
    for (const start of sequences.filter((s) => s.length === length - 1)) {
      for (const arg of ARGS) sequences.push([...start, arg]);
    }
  }
  for (const args of sequences) {
    assert.equal(byLspgate(args), byNode(args), JSON.stringify(args));
    compared++;
  }
  assert.equal(compared, 1 + 27 + 27 ** 2 + 27 ** 3);
  // A few read out, so the comparison is seen to compare something.
  assert.equal(byLspgate(["--root", "-", "call"]), JSON.stringify([[["root", "-"]], ["call"]]));
  assert.equal(byLspgate(["-hx"]), "unknown flag -x");
  assert.equal(byLspgate(["--", "--trust"]), JSON.stringify([[], ["--trust"]]));
});
