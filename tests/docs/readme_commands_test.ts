// The documented path is the tested path: every command in a fenced block of README.md and
// permissions.md (shell lines, and the commands configuration snippets hold) is run here exactly
// as written — through bash, in a fresh HOME, with the README's own grant, never -A — against a
// real server (deno lsp on the deno fixture), and its answer checked; or it is listed below as
// skipped with the reason. A command that is neither fails the coverage test, so the README and
// the tests cannot drift apart. The commands come from the text itself, never from a copy.
import assert from "node:assert/strict";
import { join } from "node:path";
import { TempWorkspace } from "../helpers/workspace.ts";
import { type Block, type DocCommand, documentedCommands } from "./extract.ts";
import {
  CHECKOUT,
  DEFINITION,
  fill,
  greet,
  jsonLinesRule,
  ok,
  Reader,
  RENAME,
  type Rule,
  type Scene,
  startTask,
  succeeds,
} from "./reader.ts";
import { AGENT_RULES } from "./agent_rules.ts";
import { LSPGATE_RULES } from "./lspgate_rules.ts";

const DOCS = ["README.md", "permissions.md"];
const COMMANDS: DocCommand[] = [];
for (const file of DOCS) {
  COMMANDS.push(...documentedCommands(await Deno.readTextFile(join(CHECKOUT, file)), file));
}

const RULES: Rule[] = [
  // The top of the README.
  {
    pattern: /^npx -y deno@2 task demo$/,
    async run(scene) {
      const ran = await scene.reader.sh(scene.filled, { cwd: CHECKOUT });
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(
        ran.stdout,
        /1 definition of `greet` at src\/main\.ts:7:29:\n\nsrc\/greet\.ts:2:17/,
      );
      assert.match(ran.stdout, /error OUTSIDE_WORKSPACE/);
    },
  },
  { pattern: /^npx -y deno@2 task test$/, skip: "the test suite this test is part of" },
  { pattern: /^deno task test$/, skip: "the test suite this test is part of" },
  { pattern: /^deno task ok$/, skip: "fmt, lint, check and this test suite" },
  { pattern: /^bash \.ci\/run$/, skip: "this test suite on a fresh machine (CI)" },
  { pattern: /^deno test --allow-all tests\/conformance\/$/, skip: "part of this test suite" },
  {
    pattern: /^deno task bench( --quick| --compare \.\.\/other-checkout)?$/,
    skip: "a benchmark: minutes of timings, nothing asserted",
  },
  {
    pattern: /^deno run (-A|--allow-read) tests\/bench\/(profile|syntax)\.ts/,
    skip: "a benchmark: timings, nothing asserted",
  },
  {
    pattern: /^deno compile /,
    skip: "needs Deno's runtime download host, unreachable from these machines",
  },
  // The language servers' commands inside lspgate's own config example.
  {
    pattern: /^(\/opt\/tsls\/bin\/typescript-language-server --stdio|nil)$/,
    lang: "jsonc",
    skip: "a server command in the config example: lspgate runs it, not the reader",
  },
  // Running it.
  {
    pattern: /^cd \/path\/to\/project$/,
    run(scene) {
      scene.cwd = scene.ws.root;
      return Promise.resolve();
    },
  },
  jsonLinesRule(
    /^deno task --config \/path\/to\/lspgate\/deno\.json start --role subagent$/,
    false,
  ),
  // "from lspgate's checkout", the README says.
  jsonLinesRule(/^deno task start --root \/path\/to\/project --role subagent$/, false, "checkout"),
  jsonLinesRule(/^deno task start:mutations --root \/path\/to\/project$/, true, "checkout"),
  succeeds(
    /^deno task permissions --root \/path\/to\/project$/,
    /deno run .*--allow-read=\S*/,
    "checkout",
  ),
  // "`deno task start` is": the task's own line, run from the checkout (its default root).
  {
    pattern: /^deno run (\S+ )+mod\.ts$/,
    async run(scene) {
      assert.equal(scene.filled, (await startTask()).text, "the README's line is the start task");
      const answers = await scene.reader.jsonLines(scene.filled, CHECKOUT, [
        { id: 1, action: "status" },
      ]);
      const status = ok(answers.get(1));
      assert.equal(status.root, CHECKOUT);
      // The grant's write on the runtime folder is what makes change tracking exact.
      assert.equal(status.changeTracking, "exact", JSON.stringify(status));
    },
  },
  // permissions.md, Wall 3: the start task's grant runs a sub-agent, nothing asked.
  {
    pattern: /^deno run (\S+ )+mod\.ts --role subagent < \/dev\/null$/,
    async run(scene) {
      const words = scene.filled.split(" ");
      assert.deepEqual(words.slice(2, words.indexOf("mod.ts")), (await startTask()).grant);
      const ran = await scene.reader.sh(scene.filled, { cwd: CHECKOUT });
      assert.deepEqual(ran, { code: 0, stdout: "", stderr: "" });
    },
  },
  // permissions.md: print the flags, then run with exactly those.
  {
    pattern:
      /^deno run --allow-read --allow-env --allow-run mod\.ts permissions --root \/work\/project --role subagent$/,
    async run(scene) {
      const ran = await scene.reader.sh(scene.filled, { cwd: CHECKOUT });
      assert.equal(ran.code, 0, ran.stderr);
      const printed = ran.stdout.split("\n").find((line) => line.startsWith("deno run "));
      assert.ok(printed, ran.stdout);
      scene.notes.set("printed", printed);
    },
  },
  {
    pattern:
      /^deno run --allow-read=\/work\/project,\/usr,… --allow-run=\S+ --allow-write=\S+ --allow-net=\S+ --allow-env=\S+ mod\.ts --root \/work\/project --role subagent --sandbox bwrap$/,
    async run(scene) {
      // The documented line elides what step 1 printed ("…"): run what it printed, as said.
      const printed = scene.notes.get("printed") as string;
      assert.match(printed, new RegExp(`--allow-read=\\S*${scene.ws.root}`));
      assert.match(printed, /--allow-run=\S*bwrap/);
      assert.ok(!/ -A | --allow-all /.test(printed), printed);
      // Write on the runtime folder alone, net for the daemon's socket alone.
      const runtime = join(scene.reader.runtime, "lspgate");
      const words = printed.split(" ");
      assert.deepEqual(words.filter((w) => w.startsWith("--allow-write")), [
        `--allow-write=${runtime}`,
      ]);
      assert.deepEqual(words.filter((w) => w.startsWith("--allow-net")), [
        `--allow-net=unix:${runtime}/daemon.sock`,
      ]);
      const answers = await scene.reader.jsonLines(
        `${printed} --sandbox bwrap`,
        CHECKOUT,
        [DEFINITION, RENAME],
      );
      const definition = ok(answers.get(1));
      assert.deepEqual(definition.locations, [await greet(scene.ws)]);
      assert.equal(definition.sandboxed, true);
      assert.equal(answers.get(2)?.error?.code, "ACTION_NOT_ALLOWED");
    },
  },
  ...LSPGATE_RULES,
  ...AGENT_RULES,
];

function ruleFor(command: DocCommand): Rule[] {
  return RULES.filter((rule) =>
    rule.pattern.test(command.text) && (!rule.lang || rule.lang === command.block.lang)
  );
}

Deno.test("every fenced command of README.md and permissions.md is run here, or listed as skipped with why", () => {
  const unmatched = COMMANDS.filter((c) => ruleFor(c).length !== 1);
  assert.deepEqual(
    unmatched.map((c) => `${c.block.file}:${c.line}: ${c.text} (${ruleFor(c).length} rules)`),
    [],
    "each documented command needs exactly one rule in tests/docs (run it, or skip with a reason)",
  );
  const unused = RULES.filter((rule) => !COMMANDS.some((c) => ruleFor(c).includes(rule)));
  assert.deepEqual(
    unused.map((r) => String(r.pattern)),
    [],
    "rules for commands no longer documented",
  );
  // The install command, the hook configuration and the MCP line must be there to be run.
  for (const needed of [/^deno install -g /, / hook --root /, /^claude mcp add /]) {
    assert.ok(COMMANDS.some((c) => needed.test(c.text)), `the README gives no ${needed}`);
  }
});

const blocks = new Map<Block, DocCommand[]>();
for (const command of COMMANDS) {
  blocks.set(command.block, [...blocks.get(command.block) ?? [], command]);
}

for (const [block, commands] of blocks) {
  if (commands.every((c) => ruleFor(c)[0]?.skip !== undefined || ruleFor(c).length !== 1)) continue;
  Deno.test(`${block.file}:${block.line}: ${commands[0].text.slice(0, 70)}`, async (t) => {
    const reader = await Reader.create();
    const ws = await TempWorkspace.copy("deno");
    const scene: Scene = { reader, ws, cwd: CHECKOUT, notes: new Map(), filled: "" };
    try {
      for (const command of commands) {
        const [rule] = ruleFor(command);
        await t.step({
          name: `${command.text}${rule?.skip ? ` — skipped: ${rule.skip}` : ""}`,
          ignore: rule?.skip !== undefined,
          async fn() {
            scene.filled = fill(command.text, ws.root);
            await rule!.run!(scene, command);
          },
        });
      }
    } finally {
      // Daemons the commands started for this project (call and hook start one by default).
      if (await Deno.stat(join(reader.home, ".deno", "bin", "lspgate")).catch(() => undefined)) {
        await reader.sh("lspgate daemon stop", { cwd: ws.root, timeoutMs: 30_000 });
      }
      await ws.remove();
      await reader.remove();
    }
  });
}
