// Servers stay confined where bubblewrap cannot be: Landlock. A sub-agent's hover (and definition,
// diagnostics, workspace symbols) on a file that imports `../../outside/secret` never shows the
// secret, answers about code inside the root stay right, and status names the backend, under:
// (a) a bare machine with `--sandbox landlock`; (b) lspgate itself inside bubblewrap that forbids
// user namespaces, so its own bwrap cannot nest and `auto` falls back to Landlock; (c) lspgate
// inside Anthropic's sandbox-runtime (`srt`), where bubblewrap cannot mount /proc. lspgate runs as
// `deno task start` grants (--allow-read --allow-env --allow-run), never -A.
import assert from "node:assert/strict";
import { join } from "node:path";
import { V8_FLAGS_ARG } from "../../src/v8_flags.ts";
import { RUNTIME_GRANT } from "../../src/fs.ts";
import { locate } from "../helpers/locate.ts";
import { spawnMcp } from "../helpers/mcp_lines.ts";
import { spawnLines } from "../helpers/line_process.ts";
import { ensureSandboxRuntime } from "../tools.ts";
import { LSPGATE_DIR } from "./fixture.ts";
import { type HostileRepo, hostileRepo } from "./hostile.ts";

const SECRET = "OUTSIDE-CONTENTS-5c81aa";
const MOD = join(LSPGATE_DIR, "mod.ts");

interface Case {
  name: string;
  files: Record<string, string>;
  file: string;
}

const INNER = "export function innerGreeting(name: string): string {\n  return name;\n}\n";

const cases: Case[] = [
  {
    name: "typescript-language-server",
    files: {
      "package.json": `{"name": "victim", "private": true}\n`,
      "tsconfig.json": `{"compilerOptions": {"strict": true}}\n`,
      "src/inner.ts": INNER,
      "src/main.ts": `import { secret } from "../../outside/secret";\n` +
        `import { innerGreeting } from "./inner";\n\n` +
        `export const got = secret;\nexport const hi = innerGreeting("x");\n`,
    },
    file: "src/main.ts",
  },
  {
    name: "deno lsp",
    files: {
      "deno.json": "{}\n",
      "src/inner.ts": INNER,
      "src/main.ts": `import { secret } from "../../outside/secret.ts";\n` +
        `import { innerGreeting } from "./inner.ts";\n\n` +
        `export const got = secret;\nexport const hi = innerGreeting("x");\n`,
    },
    file: "src/main.ts",
  },
];

type Answer = Record<string, unknown> & {
  id: number;
  ok: boolean;
  details?: Record<string, unknown>;
  content?: { text: string }[];
};

interface RunOptions {
  prefix?: string[];
  command?: string[];
  flags?: string[];
  env?: Record<string, string>;
}

/** lspgate's command line as `deno task start` grants it, behind `prefix`, as a sub-agent. */
function lspgateArgv(repo: HostileRepo, options: RunOptions): string[] {
  const lspgate = [
    Deno.execPath(),
    "run",
    V8_FLAGS_ARG,
    "--allow-read",
    "--allow-env",
    "--allow-run",
    // The start task's runtime-folder grant, expanded as the shell would for this environment.
    ...expandGrant({ ...Deno.env.toObject(), ...options.env }),
    MOD,
    ...(options.command ?? []),
    "--root",
    repo.root,
    "--role",
    "subagent",
    ...(options.flags ?? []),
  ];
  return [...(options.prefix ?? []), ...lspgate];
}

/** Runs lspgate (as `deno task start` grants it) behind `prefix`; all answers by id. */
async function runLspgate(
  repo: HostileRepo,
  requests: Record<string, unknown>[],
  options: RunOptions = {},
): Promise<{ answers: Map<number, Answer>; stdout: string; stderr: string }> {
  const argv = lspgateArgv(repo, options);
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: repo.root,
    env: { LSPGATE_NO_DAEMON: "1", NO_COLOR: "1", ...options.env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(requests.map((r) => JSON.stringify(r) + "\n").join("")),
  );
  await writer.close();
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `lspgate exited with ${out.code}:\n${stderr}`);
  const answers = new Map<number, Answer>();
  for (const line of stdout.trim().split("\n").filter(Boolean)) {
    const answer = JSON.parse(line) as Answer;
    answers.set(answer.id, answer);
  }
  return { answers, stdout, stderr };
}

async function repoFor(c: Case): Promise<HostileRepo> {
  const repo = await hostileRepo(c.files);
  await Deno.writeTextFile(
    join(repo.outside, "secret.ts"),
    `export const secret = "${SECRET}";\n`,
  );
  return repo;
}

async function questions(repo: HostileRepo, file: string) {
  const text = await Deno.readTextFile(join(repo.root, file));
  return [
    { id: 1, action: "hover", file, ...locate(text, "secret;") },
    { id: 2, action: "definition", file, ...locate(text, "secret;") },
    { id: 3, action: "diagnostics", file },
    { id: 4, action: "symbols", file: "*", query: "secret" },
    { id: 5, action: "definition", file, ...locate(text, "innerGreeting(") },
    { id: 6, action: "hover", file, ...locate(text, "innerGreeting(") },
    { id: 7, action: "status" },
  ];
}

/** What every confined run must show: no secret anywhere, right answers inside, Landlock named. */
async function assertConfined(
  repo: HostileRepo,
  run: Awaited<ReturnType<typeof runLspgate>>,
): Promise<Record<string, unknown>> {
  const { answers, stdout, stderr } = run;
  assert.equal(answers.size, 7, stdout);
  assert.ok(!stdout.includes(SECRET), `outside contents leaked:\n${stdout}`);
  assert.ok(!stderr.includes(SECRET), `outside contents leaked on stderr:\n${stderr}`);
  const status = answers.get(7)!;
  assert.equal(status.ok, true, JSON.stringify(status));
  assert.equal(status.details?.sandboxBackend, "landlock", JSON.stringify(status.details));
  assert.match(status.content![0].text, /servers sandboxed: yes \(Landlock ABI \d+: /);
  assert.match(String(status.details?.sandbox), /not enforced: no PID namespace/);
  // Inside the root, answers stay right.
  const definition = answers.get(5)!;
  assert.equal(definition.ok, true, JSON.stringify(definition));
  const at = locate(await Deno.readTextFile(join(repo.root, "src/inner.ts")), "innerGreeting");
  const locations = definition.details?.locations as { file: string; line: number }[];
  assert.deepEqual(locations.map((l) => [l.file, l.line]), [["src/inner.ts", at.line]]);
  const hover = answers.get(6)!;
  assert.equal(hover.ok, true, JSON.stringify(hover));
  assert.match(String(hover.details?.text), /innerGreeting\(name: string\): string/);
  for (const id of [1, 2, 5, 6]) {
    assert.equal(answers.get(id)!.details?.sandboxBackend, "landlock", `answer ${id}`);
  }
  return status.details!;
}

/**
 * The servers' memory can be read (`status`): Deno may not read /proc under the start task's grant,
 * and inside srt procps's ps fails after its first run, so lspgate reads /proc through `cat`.
 * (The servers may still be starting when `status` is asked: the total is 0 then, not unknown.)
 */
function assertMemoryRead(status: Record<string, unknown>): void {
  assert.equal(typeof status.serversRssMiB, "number", JSON.stringify(status));
}

/**
 * Once a server has answered, `status` gives its memory, not 0: inside srt /proc is the outer PID
 * namespace's, where the server's pid names another process or none (proc_namespace.ts).
 */
async function assertServerMemory(repo: HostileRepo, c: Case, options: RunOptions): Promise<void> {
  const argv = lspgateArgv(repo, options);
  const lines = spawnLines(argv[0], argv.slice(1), {
    cwd: repo.root,
    env: { LSPGATE_NO_DAEMON: "1", NO_COLOR: "1", ...options.env },
  });
  try {
    const text = await Deno.readTextFile(join(repo.root, c.file));
    await lines.send({ id: 1, action: "hover", file: c.file, ...locate(text, "innerGreeting(") });
    assert.equal((await lines.next()).ok, true);
    await lines.send({ id: 2, action: "status" });
    const status = await lines.next();
    const servers = status.details.servers as { state: string; pid: number; rssMiB?: number }[];
    const serving = servers.filter((s) => s.state === "ready");
    assert.ok(serving.length > 0, JSON.stringify(servers));
    for (const server of serving) {
      // A language server holds tens of MiB at least; srt's socat, a few.
      assert.ok((server.rssMiB ?? 0) >= 20, `no memory read for ${JSON.stringify(server)}`);
    }
    assert.ok(status.details.serversRssMiB >= 20, JSON.stringify(status.details));
  } finally {
    await lines.close();
    await lines.child.status;
  }
}

for (const c of cases) {
  Deno.test(`(a) bare, --sandbox landlock: ${c.name} shows a sub-agent nothing of ../../outside/secret`, async () => {
    const repo = await repoFor(c);
    try {
      const run = await runLspgate(repo, await questions(repo, c.file), {
        flags: ["--sandbox", "landlock"],
      });
      await assertConfined(repo, run);
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

/**
 * bubblewrap around lspgate that forbids new user namespaces (`--disable-userns`): lspgate's own
 * bwrap cannot create one, as under any agent that already runs in bubblewrap.
 */
const NESTED_BWRAP = [
  "bwrap",
  "--dev-bind",
  "/",
  "/",
  "--proc",
  "/proc",
  "--unshare-user",
  "--disable-userns",
  "--unshare-pid",
  "--die-with-parent",
  "--",
];

for (const c of cases) {
  Deno.test(`(b) inside bubblewrap, sandbox auto falls back to Landlock: ${c.name} shows nothing of ../../outside/secret`, async () => {
    const repo = await repoFor(c);
    try {
      const run = await runLspgate(repo, await questions(repo, c.file), { prefix: NESTED_BWRAP });
      const status = await assertConfined(repo, run);
      assert.match(
        String(status.sandbox),
        /bubblewrap not used: bubblewrap \(\/[^)]*bwrap\) is installed but cannot create namespaces here/,
      );
      assertMemoryRead(status);
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

/** RUNTIME_GRANT with `$NAME` expanded from `vars` (unset: empty), as `sh` and `deno task` do. */
function expandGrant(vars: Record<string, string>): string[] {
  return RUNTIME_GRANT.map((flag) => flag.replace(/\$(\w+)/g, (_, name) => vars[name] ?? ""));
}

/** srt's settings: no network, reads everywhere (its default), writes only to `writable`. */
async function srtPrefix(
  repo: HostileRepo,
): Promise<{ prefix: string[]; env: Record<string, string> }> {
  const srt = await ensureSandboxRuntime();
  // srt points TMPDIR at this folder (CLAUDE_CODE_TMPDIR), where lspgate's runtime folder and so
  // the servers' scratch folders go; Claude Code creates /tmp/claude itself.
  const tmp = join(repo.base, "agent-tmp");
  await Deno.mkdir(tmp);
  const settings = join(repo.base, "srt-settings.json");
  await Deno.writeTextFile(
    settings,
    JSON.stringify({
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: { denyRead: [], allowWrite: [tmp], denyWrite: [] },
    }),
  );
  return {
    prefix: [srt, "--settings", settings],
    env: { CLAUDE_CODE_TMPDIR: tmp, TMPDIR: tmp, XDG_RUNTIME_DIR: "" },
  };
}

for (const c of cases) {
  Deno.test(`(c) inside sandbox-runtime (srt), sandbox auto is Landlock: ${c.name} shows nothing of ../../outside/secret`, async () => {
    const repo = await repoFor(c);
    try {
      const { prefix, env } = await srtPrefix(repo);
      const run = await runLspgate(repo, await questions(repo, c.file), { prefix, env });
      const status = await assertConfined(repo, run);
      assert.match(
        String(status.sandbox),
        /bubblewrap not used: bubblewrap \(\/[^)]*bwrap\) is installed but cannot create namespaces here/,
      );
      assertMemoryRead(status);
      await assertServerMemory(repo, c, { prefix, env });
      // The scratch folders went with their servers.
      const scratch = [];
      for await (const entry of Deno.readDir(join(repo.base, "agent-tmp"))) {
        // srt keeps its own sockets there too.
        if (!entry.isDirectory) continue;
        for await (const inner of Deno.readDir(join(repo.base, "agent-tmp", entry.name))) {
          if (inner.name !== "sandbox") continue;
          for await (
            const left of Deno.readDir(join(repo.base, "agent-tmp", entry.name, inner.name))
          ) {
            scratch.push(left.name);
          }
        }
      }
      assert.deepEqual(scratch, [], "scratch folders were left behind");
    } finally {
      await Deno.remove(repo.base, { recursive: true });
    }
  });
}

Deno.test("(d) inside srt, --daemon, mcp --daemon and call serve in-process at once (srt refuses Unix sockets), confined by Landlock; what asked for the daemon and doctor say why", async () => {
  const c = cases[0];
  const repo = await repoFor(c);
  try {
    const { prefix, env } = await srtPrefix(repo);
    const refused = new RegExp(
      "the daemon could not be used \\(PERMISSION_DENIED: this process may not create Unix " +
        "sockets \\(a sandbox's seccomp filter refuses them",
    );
    const run = await runLspgate(repo, await questions(repo, c.file), {
      prefix,
      env,
      flags: ["--daemon"],
    });
    const status = await assertConfined(repo, run);
    assert.equal(status.daemonPid, undefined, "served in-process");
    assert.match(run.stderr, refused);
    assert.match(run.stderr, /; serving in-process/);

    const text = await Deno.readTextFile(join(repo.root, c.file));
    const argv = lspgateArgv(repo, { prefix, env, command: ["mcp"], flags: ["--daemon"] });
    const mcp = spawnMcp(argv[0], argv.slice(1), {
      cwd: repo.root,
      env: { NO_COLOR: "1", ...env },
      stderr: "piped",
    });
    const stderr = new Response(mcp.child.stderr).text();
    await mcp.introduce();
    const hover = async (id: number, at: string) => {
      await mcp.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "lsp", arguments: { action: "hover", file: c.file, ...locate(text, at) } },
      });
      const answer = await mcp.next();
      assert.equal(answer.id, id);
      return JSON.stringify(answer.result);
    };
    assert.match(await hover(2, "innerGreeting("), /innerGreeting\(name: string\): string/);
    assert.ok(!(await hover(3, "secret;")).includes(SECRET), "outside contents leaked");
    await mcp.close();
    await mcp.child.status;
    // One line says it all.
    const said = (await stderr).split("\n").filter((line) => line.startsWith("lspgate:"));
    assert.equal(said.length, 1, said.join("\n"));
    assert.match(said[0], refused);
    assert.match(said[0], /; serving in-process$/);

    // `call` asks for the daemon by default: it answers in-process too, with no line about it.
    const at = locate(text, "innerGreeting(");
    const callArgv = lspgateArgv(repo, {
      prefix,
      env,
      command: ["call", "hover", `file=${c.file}`, `line=${at.line}`, "symbol=innerGreeting"],
    });
    const call = await new Deno.Command(callArgv[0], {
      args: callArgv.slice(1),
      cwd: repo.root,
      env: { NO_COLOR: "1", LSPGATE_NO_DAEMON: "", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const callErr = new TextDecoder().decode(call.stderr);
    assert.equal(call.code, 0, callErr);
    assert.match(new TextDecoder().decode(call.stdout), /innerGreeting\(name: string\): string/);
    assert.doesNotMatch(callErr, /daemon/);

    // doctor says why there is no daemon, not just that none runs.
    const doctorArgv = lspgateArgv(repo, { prefix, env, command: ["doctor"] });
    const doctor = await new Deno.Command(doctorArgv[0], {
      args: doctorArgv.slice(1),
      cwd: repo.root,
      env: { NO_COLOR: "1", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.match(
      new TextDecoder().decode(doctor.stdout),
      /\nDaemon: unavailable: this process may not create Unix sockets .* \(clients serve in their own process\) — /,
    );
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});

Deno.test("control: inside srt and inside bubblewrap, --sandbox none hovers the secret (what Landlock stops there)", async () => {
  const repo = await repoFor(cases[0]);
  try {
    const text = await Deno.readTextFile(join(repo.root, cases[0].file));
    const hover = [{ id: 1, action: "hover", file: cases[0].file, ...locate(text, "secret;") }];
    const srt = await srtPrefix(repo);
    for (const options of [{ ...srt }, { prefix: NESTED_BWRAP }]) {
      const { answers } = await runLspgate(repo, hover, {
        ...options,
        flags: ["--sandbox", "none"],
      });
      const answer = answers.get(1)!;
      assert.equal(answer.ok, true, JSON.stringify(answer));
      assert.equal(answer.details?.sandboxBackend, "none");
      assert.match(String(answer.details?.text), new RegExp(SECRET));
    }
  } finally {
    await Deno.remove(repo.base, { recursive: true });
  }
});
