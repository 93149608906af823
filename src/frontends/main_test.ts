import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runLspgate, type RunResult } from "../../tests/fixtures/frontends/workspace.ts";
import { VERSION } from "../version.ts";
import { commandOf, parseFlags, USAGE, UsageError } from "./main.ts";

const CHECKOUT = fileURLToPath(new URL("../../", import.meta.url));
const HINT = "Run `lspgate --help` for the flags and commands.";

Deno.test("parseFlags() returns the text of -h, --help and --version instead of exiting", async () => {
  assert.equal((await parseFlags(["--help"])).print, USAGE);
  assert.equal((await parseFlags(["-h"])).print, USAGE);
  assert.equal((await parseFlags(["mcp", "-h"])).print, USAGE);
  assert.equal((await parseFlags(["--version"])).print, `lspgate ${VERSION}`);
  // A bad config does not stand in the way of the help.
  assert.equal((await parseFlags(["--help", "--config", "/nonexistent.jsonc"])).print, USAGE);
  assert.equal((await parseFlags(["--root", CHECKOUT])).print, undefined);
});

Deno.test("parseFlags() throws UsageError naming the flag", async () => {
  const cases: [string[], string][] = [
    [["--bogus"], "unknown flag --bogus"],
    [["-x"], "unknown flag -x"],
    [["--root"], "--root needs a value (--root DIR; --root=DIR when it starts with -)"],
    [["--root", "--trust"], "--root needs a value (--root DIR; --root=DIR when it starts with -)"],
    [["--trust=yes"], "--trust takes no value"],
    [["--role", "boss"], "--role must be main or subagent, not `boss`"],
    [["--sandbox", "jail"], "--sandbox must be auto, bwrap, landlock or none, not `jail`"],
    [
      ["--timeout", "99"],
      "--timeout must be a whole number of milliseconds, at least 100, not `99`",
    ],
    [
      ["--timeout", "1e4"],
      "--timeout must be a whole number of milliseconds, at least 100, not `1e4`",
    ],
    [["--root", "/nonexistent/lspgate"], "--root /nonexistent/lspgate: no such folder"],
    [["--root", join(CHECKOUT, "mod.ts")], `--root ${join(CHECKOUT, "mod.ts")} is not a folder`],
  ];
  for (const [args, message] of cases) {
    await assert.rejects(parseFlags(args), (error) => {
      assert.ok(error instanceof UsageError, `${args.join(" ")}: ${error}`);
      assert.equal(error.message, message);
      return true;
    });
  }
});

Deno.test("commandOf() finds the command past flags and their values, even bad ones", () => {
  assert.equal(commandOf(["hook", "--bogus"]), "hook");
  assert.equal(commandOf(["--root", "hook", "call"]), "call");
  assert.equal(commandOf(["--root=x", "--trust", "hook"]), "hook");
  assert.equal(commandOf(["--bogus", "hook"]), "hook");
  assert.equal(commandOf(["--", "hook"]), "hook");
  assert.equal(commandOf(["--role", "main"]), undefined);
});

Deno.test("lspgate -h, --help and --version print and exit 0", async () => {
  for (const flag of ["-h", "--help"]) {
    const help = await runLspgate([flag]);
    assert.equal(help.code, 0, help.stderr);
    assert.equal(help.stderr, "");
    assert.equal(help.stdout, `${USAGE}\n`);
    assert.match(help.stdout, /^ {2}--version {13}lspgate's version$/m);
  }
  const version = await runLspgate(["--version"]);
  assert.deepEqual(version, { code: 0, stdout: "lspgate 0.1.0\n", stderr: "" });
  const config = JSON.parse(await Deno.readTextFile(join(CHECKOUT, "deno.json")));
  assert.equal(VERSION, config.version);
});

/** Exit 2, nothing on stdout, the usage line and the hint to --help on stderr. */
function assertUsage(result: RunResult, line: string): void {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, "");
  assert.equal(result.stderr, `lspgate: usage: ${line}\n${HINT}\n`);
}

Deno.test("lspgate with bad flags: a usage error, exit 2, never INTERNAL", async () => {
  const invalid = await Deno.makeTempFile({ prefix: "lspgate_main_config_", suffix: ".jsonc" });
  try {
    await Deno.writeTextFile(invalid, '{\n  "role": "boss"\n}\n');
    const cases: [string[], string][] = [
      [["--bogus"], "unknown flag --bogus"],
      [["mcp", "--colour"], "unknown flag --colour"],
      [["call", "definition", "--verbose", "file=a.ts"], "unknown flag --verbose"],
      [
        ["permissions", "--root"],
        "--root needs a value (--root DIR; --root=DIR when it starts with -)",
      ],
      [["--role", "boss"], "--role must be main or subagent, not `boss`"],
      [["--sandbox", "jail"], "--sandbox must be auto, bwrap, landlock or none, not `jail`"],
      [
        ["--timeout", "soon"],
        "--timeout must be a whole number of milliseconds, at least 100, not `soon`",
      ],
      [["--json=yes"], "--json takes no value"],
      [["--root", "/nonexistent/lspgate"], "--root /nonexistent/lspgate: no such folder"],
      [["frob"], "unknown command `frob`; one of mcp, call, hook, permissions, daemon, doctor"],
    ];
    for (const [args, line] of cases) assertUsage(await runLspgate(args), line);

    const unreadable = await runLspgate(["--config", "/nonexistent/lspgate.jsonc"]);
    assert.equal(unreadable.code, 2);
    assert.match(
      unreadable.stderr,
      /^lspgate: usage: --config: cannot read config \/nonexistent\/lspgate\.jsonc: [^\n]+\nRun `lspgate --help` for the flags and commands\.\n$/,
    );
    const wrong = await runLspgate(["mcp", "--config", invalid]);
    assert.equal(wrong.code, 2);
    assert.match(
      wrong.stderr,
      new RegExp(`^lspgate: usage: --config: config ${invalid}:2: role: `),
    );
    assert.ok(wrong.stderr.endsWith(`\n${HINT}\n`), wrong.stderr);
  } finally {
    await Deno.remove(invalid);
  }
});

/** Runs `deno task NAME ...args` of lspgate's deno.json from `cwd`, with `stdin` as input. */
async function runTask(
  name: string,
  args: string[],
  options: { cwd: string; stdin: string },
): Promise<RunResult> {
  // Deno keeps an INIT_CWD it inherits (from `deno task test`, say); the user's shell has none.
  const env = Deno.env.toObject();
  delete env.INIT_CWD;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "--config", join(CHECKOUT, "deno.json"), name, ...args],
    cwd: options.cwd,
    clearEnv: true,
    env: { ...env, NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(options.stdin));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** The status details a `deno task` answered with. */
function statusOf(result: RunResult): Record<string, unknown> {
  assert.equal(result.code, 0, result.stderr);
  const response = JSON.parse(result.stdout.trim().split("\n")[0]);
  assert.equal(response.ok, true, result.stdout);
  return response.details;
}

Deno.test("deno task start, start:mutations and permissions serve the folder they are run from", async () => {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_task_" }));
  const other = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_task_other_" }));
  try {
    const status = '{"id": 1, "action": "status"}\n';
    const start = statusOf(
      await runTask("start", ["--sandbox", "none"], { cwd: workspace, stdin: status }),
    );
    assert.equal(start.root, workspace);
    assert.equal(start.allowMutations, false);

    const mutations = statusOf(
      await runTask("start:mutations", ["--sandbox", "none"], { cwd: workspace, stdin: status }),
    );
    assert.equal(mutations.root, workspace);
    assert.equal(mutations.allowMutations, true);

    // --root wins over the folder the task was run from.
    const rooted = statusOf(
      await runTask("start", ["--sandbox", "none", "--root", other], {
        cwd: workspace,
        stdin: status,
      }),
    );
    assert.equal(rooted.root, other);

    const permissions = await runTask("permissions", [], { cwd: workspace, stdin: "" });
    assert.equal(permissions.code, 0, permissions.stderr);
    assert.ok(
      permissions.stdout.includes(` --root ${workspace} `),
      `the printed command line does not serve ${workspace}:\n${permissions.stdout}`,
    );
  } finally {
    await Deno.remove(workspace, { recursive: true });
    await Deno.remove(other, { recursive: true });
  }
});

Deno.test("deno task start run from lspgate's own checkout serves the checkout, not an inherited INIT_CWD elsewhere", async () => {
  const status = statusOf(
    await runTask("start", ["--sandbox", "none"], {
      cwd: CHECKOUT,
      stdin: '{"id": 1, "action": "status"}\n',
    }),
  );
  assert.equal(status.root, await Deno.realPath(CHECKOUT));
  // A program run elsewhere ignores an INIT_CWD some parent left behind.
  const elsewhere = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_task_" }));
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", join(CHECKOUT, "mod.ts"), "--sandbox", "none"],
      cwd: elsewhere,
      env: { INIT_CWD: CHECKOUT, NO_COLOR: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode('{"id": 1, "action": "status"}\n'));
    await writer.close();
    const { code, stdout, stderr } = await child.output();
    const decoder = new TextDecoder();
    const details = statusOf({
      code,
      stdout: decoder.decode(stdout),
      stderr: decoder.decode(stderr),
    });
    assert.equal(details.root, elsewhere);
  } finally {
    await Deno.remove(elsewhere, { recursive: true });
  }
});
