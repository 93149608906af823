// Each agent's setup, run as documented: Claude Code's own CLI adds the MCP line and validates
// the plugin folder, Codex CLI and OpenCode read their config snippets, the hook configuration's
// commands get Claude Code's payloads, and pi's extension answers through its tool.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { ensureAgentCli } from "../tools.ts";
import { until } from "../helpers/daemon.ts";
import type { Block } from "./extract.ts";
import {
  CHECKOUT,
  DEFINITION,
  greet,
  installLspgate,
  mcpAnswers,
  type Rule,
  type Scene,
} from "./reader.ts";

/** An agent's CLI on the reader's PATH (installed into the tools folder when missing). */
async function withAgent(scene: Scene, name: "claude" | "codex" | "opencode"): Promise<void> {
  const program = await ensureAgentCli(name);
  const folder = program.slice(0, program.lastIndexOf("/"));
  if (!scene.reader.extraPath.includes(folder)) scene.reader.extraPath.push(folder);
}

/** The fenced block a rule's command came from, parsed as JSON. */
function blockJson(block: Block): Record<string, unknown> {
  return JSON.parse(block.text);
}

const plain = (text: string) => stripVTControlCharacters(text);

type HookEvent = "SessionStart" | "PostToolUse" | "Stop";

/** A Claude Code hook payload for the reader's project (a PostToolUse of `tool` on main.ts). */
function payload(scene: Scene, event: HookEvent, tool: "Edit" | "Read" = "Edit"): string {
  const common = {
    session_id: "docs-test-session",
    transcript_path: join(scene.reader.home, "transcript.jsonl"),
    cwd: scene.ws.root,
    hook_event_name: event,
  };
  const file_path = scene.ws.path("src/main.ts");
  return JSON.stringify(
    event === "Stop"
      ? { ...common, stop_hook_active: false }
      : event === "SessionStart"
      ? { ...common, source: "startup" }
      : tool === "Read"
      ? { ...common, tool_name: "Read", tool_input: { file_path }, tool_response: {} }
      : {
        ...common,
        tool_name: "Edit",
        tool_input: { file_path, old_string: "", new_string: "" },
        tool_response: { success: true },
      },
  );
}

/** One of the hook configuration's commands, run by bash with Claude Code's environment. */
function runHook(scene: Scene, stdin: string) {
  return scene.reader.sh(scene.filled, {
    cwd: scene.ws.root,
    stdin,
    env: { CLAUDE_PROJECT_DIR: scene.ws.root },
  });
}

const BROKEN = 'const broken: number = "not a number";\n';

export const AGENT_RULES: Rule[] = [
  // Claude Code, with its own CLI in a fresh HOME.
  {
    pattern: /^claude mcp add lspgate -- lspgate mcp$/,
    async run(scene) {
      await installLspgate(scene);
      await withAgent(scene, "claude");
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.ws.root });
      assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    },
  },
  {
    pattern: /^claude mcp list$/,
    async run(scene) {
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.ws.root });
      assert.match(
        plain(ran.stdout),
        /lspgate: lspgate mcp - ✔ Connected/,
        ran.stdout + ran.stderr,
      );
    },
  },
  {
    pattern: /^claude plugin validate \/path\/to\/lspgate\/integrations\/claude-code$/,
    async run(scene) {
      await withAgent(scene, "claude");
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.ws.root });
      assert.equal(ran.code, 0, ran.stdout + ran.stderr);
      assert.match(plain(ran.stdout), /✔ Validation passed/);
      // The plugin's hooks are the README's settings, word for word.
      const readme = await Deno.readTextFile(join(CHECKOUT, "README.md"));
      const settings = readme.match(/```json\n(\{\n {2}"hooks": [\s\S]*?)\n```/)?.[1];
      assert.ok(settings, "the README's Claude Code hook settings");
      const plugin = join(CHECKOUT, "integrations", "claude-code");
      assert.deepEqual(
        JSON.parse(await Deno.readTextFile(join(plugin, "hooks", "hooks.json"))),
        JSON.parse(settings),
      );
    },
  },
  {
    pattern: /^claude --plugin-dir \/path\/to\/lspgate\/integrations\/claude-code mcp list$/,
    async run(scene) {
      await installLspgate(scene);
      await withAgent(scene, "claude");
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.ws.root });
      assert.match(
        plain(ran.stdout),
        /plugin:lspgate:lspgate: lspgate mcp - ✔ Connected/,
        ran.stdout,
      );
    },
  },
  // The hook configuration: its commands, given Claude Code's payloads.
  {
    pattern: /^lspgate hook --event session-start --root "\$CLAUDE_PROJECT_DIR"$/,
    async run(scene, command) {
      await installLspgate(scene);
      assertHookConfig(command.block, "SessionStart");
      const ran = await runHook(scene, payload(scene, "SessionStart"));
      // It prints nothing, and the project's server is running in the daemon afterwards.
      assert.deepEqual(ran, { code: 0, stdout: "", stderr: "" });
      await until(async () => {
        const status = await scene.reader.sh("lspgate daemon status", { cwd: scene.ws.root });
        assert.equal(status.code, 0, status.stderr);
        const { servers } = JSON.parse(status.stdout) as { servers: { state: string }[] };
        return servers.some((server) => server.state === "running");
      }, "the session's start has the project's server running in the daemon");
    },
  },
  {
    pattern: /^lspgate hook --root "\$CLAUDE_PROJECT_DIR"$/,
    async run(scene, command) {
      await installLspgate(scene);
      assertHookConfig(command.block, "PostToolUse");
      // Claude Code's Read before its Edit: the same command opens the file, and says nothing.
      const read = await runHook(scene, payload(scene, "PostToolUse", "Read"));
      assert.deepEqual(read, { code: 0, stdout: "", stderr: "" });
      await scene.ws.write("src/main.ts", (await scene.ws.read("src/main.ts")) + BROKEN);
      const ran = await runHook(scene, payload(scene, "PostToolUse"));
      assert.equal(ran.code, 2, `exit ${ran.code}\n${ran.stdout}\n${ran.stderr}`);
      assert.match(ran.stderr, /src\/main\.ts/);
      assert.match(ran.stderr, /not assignable to type 'number'/);
    },
  },
  {
    pattern: /^lspgate hook --event stop --root "\$CLAUDE_PROJECT_DIR"$/,
    async run(scene, command) {
      assertHookConfig(command.block, "Stop");
      const ran = await runHook(scene, payload(scene, "Stop"));
      assert.match(ran.stdout + ran.stderr, /src\/main\.ts/, `exit ${ran.code}\n${ran.stderr}`);
      assert.match(ran.stdout + ran.stderr, /not assignable to type 'number'/);
    },
  },
  // Codex CLI reads the TOML as its config; the server it names answers.
  {
    pattern: /^lspgate mcp$/,
    lang: "toml",
    async run(scene, command) {
      await installLspgate(scene);
      await withAgent(scene, "codex");
      const codexHome = join(scene.reader.home, ".codex");
      await Deno.mkdir(codexHome, { recursive: true });
      await Deno.writeTextFile(join(codexHome, "config.toml"), command.block.text + "\n");
      const ran = await scene.reader.sh("codex mcp list --json", { cwd: scene.ws.root });
      assert.equal(ran.code, 0, ran.stderr);
      const listed = JSON.parse(ran.stdout.slice(ran.stdout.indexOf("["))) as {
        name: string;
        transport: { command: string; args: string[] };
      }[];
      const server = listed.find((s) => s.name === "lspgate");
      assert.deepEqual(server?.transport.command, "lspgate", ran.stdout);
      await mcpAnswers(
        scene,
        [server!.transport.command, ...server!.transport.args].join(" "),
        scene.ws.root,
      );
    },
  },
  // OpenCode reads opencode.json at the project's root and connects.
  {
    pattern: /^lspgate mcp$/,
    lang: "json",
    async run(scene, command) {
      await installLspgate(scene);
      await withAgent(scene, "opencode");
      assert.equal(blockJson(command.block).$schema, "https://opencode.ai/config.json");
      await scene.ws.write("opencode.json", command.block.text + "\n");
      const ran = await scene.reader.sh("opencode mcp list", { cwd: scene.ws.root });
      assert.match(
        plain(ran.stdout + ran.stderr),
        /✓ lspgate\s+connected/,
        ran.stdout + ran.stderr,
      );
      await mcpAnswers(scene, scene.filled, scene.ws.root);
    },
  },
  // pi: the extension, copied as the README says, loaded and asked through its tool.
  {
    pattern:
      /^mkdir -p ~\/\.pi\/agent\/extensions && cp \/path\/to\/lspgate\/integrations\/pi\/lspgate\.ts ~\/\.pi\/agent\/extensions\/$/,
    async run(scene) {
      await installLspgate(scene);
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.ws.root });
      assert.equal(ran.code, 0, ran.stderr);
      const extension = join(scene.reader.home, ".pi", "agent", "extensions", "lspgate.ts");
      const host = await scene.reader.sh(
        `deno run --no-check --allow-all --config ${
          join(CHECKOUT, "tests", "docs", "pi_host.json")
        } ` +
          `${join(CHECKOUT, "tests", "docs", "pi_host.ts")} ${extension}`,
        { cwd: scene.ws.root, stdin: JSON.stringify({ ...DEFINITION, id: undefined }) },
      );
      assert.equal(host.code, 0, host.stdout + host.stderr);
      const result = JSON.parse(host.stdout) as { tool: string; details: { locations: unknown } };
      assert.equal(result.tool, "lsp");
      assert.deepEqual(result.details.locations, [await greet(scene.ws)]);
      // And it is what pi's extension API takes: type-checked against pi's published types.
      const pi = await ensureAgentCli("pi");
      const check = join(scene.reader.home, "pi-check");
      await Deno.mkdir(check);
      await Deno.copyFile(extension, join(check, "lspgate.ts"));
      await Deno.symlink(dirname(dirname(pi)), join(check, "node_modules"));
      const tsc = await scene.reader.sh(
        "tsc --noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext " +
          "--skipLibCheck --allowImportingTsExtensions lspgate.ts",
        { cwd: check },
      );
      assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr);
    },
  },
];

/** The hook's command sits where Claude Code looks for it: `hooks.<event>[].hooks[].command`. */
function assertHookConfig(block: Block, event: HookEvent): void {
  const hooks = (blockJson(block).hooks ?? {}) as Record<
    string,
    { matcher?: string; hooks: { type: string; command: string }[] }[]
  >;
  const entries = hooks[event];
  assert.ok(entries?.length, `the hook configuration has no ${event}`);
  assert.ok(entries.every((e) => e.hooks.every((h) => h.type === "command")));
  if (event === "PostToolUse") {
    const matches = (tool: string) =>
      entries.some((e) => (e.matcher ?? "").split("|").includes(tool));
    assert.ok(["Edit", "MultiEdit", "Write", "Read"].every(matches), JSON.stringify(entries));
  }
}
