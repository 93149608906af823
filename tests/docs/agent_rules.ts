// The README's install command, the `lspgate` commands it gives, the bundle, and each agent's
// setup, run as documented: Claude Code's own CLI adds the MCP line and validates the plugin
// folder, Codex CLI and OpenCode read their config snippets, the hook configuration's commands
// get Claude Code's payloads, and pi's extension answers through its tool.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { ensureAgentCli } from "../tools.ts";
import type { Block } from "./extract.ts";
import {
  CHECKOUT,
  DEFINITION,
  greet,
  installLspgate,
  jsonLinesRule,
  ok,
  type Rule,
  type Scene,
} from "./reader.ts";

/** An MCP client over `command` lists the `lsp` tool and answers a definition right. */
async function mcpAnswers(scene: Scene, command: string, cwd: string): Promise<void> {
  const client = await scene.reader.mcp(command, cwd);
  try {
    const { tools } = await client.listTools();
    assert.ok(
      tools.some((tool: { name: string }) => tool.name === "lsp"),
      JSON.stringify(tools.map((t: { name: string }) => t.name)),
    );
    const { id: _, ...request } = DEFINITION;
    const result = await client.callTool({ name: "lsp", arguments: request });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    const details = result.structuredContent as { locations: unknown };
    assert.deepEqual(details.locations, [await greet(scene.ws)]);
  } finally {
    await client.close();
  }
}

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

/** A Claude Code hook payload for the reader's project. */
function payload(scene: Scene, event: "PostToolUse" | "Stop"): string {
  const common = {
    session_id: "docs-test-session",
    transcript_path: join(scene.reader.home, "transcript.jsonl"),
    cwd: scene.ws.root,
    hook_event_name: event,
  };
  return JSON.stringify(
    event === "Stop" ? { ...common, stop_hook_active: false } : {
      ...common,
      tool_name: "Edit",
      tool_input: { file_path: scene.ws.path("src/main.ts"), old_string: "", new_string: "" },
      tool_response: { success: true },
    },
  );
}

const BROKEN = 'const broken: number = "not a number";\n';

export const AGENT_RULES: Rule[] = [
  {
    pattern:
      /^deno install -g -f -n lspgate --config \/path\/to\/lspgate\/deno\.json .*\/path\/to\/lspgate\/mod\.ts$/,
    async run(scene) {
      await installLspgate(scene);
      // The installed command carries `deno task start`'s grant, no more.
      const { tasks } = JSON.parse(await Deno.readTextFile(join(CHECKOUT, "deno.json")));
      const start = (tasks.start as string).split(" ");
      const grant = start.slice(2, start.indexOf("mod.ts"));
      const given = scene.filled.split(" ");
      assert.deepEqual(
        given.filter((w) => w.startsWith("--allow") || w.startsWith("--v8")).sort(),
        grant.sort(),
        "the install command's grant is deno task start's",
      );
    },
  },
  {
    pattern: /^lspgate --help$/,
    async run(scene) {
      await installLspgate(scene);
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.reader.home });
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stdout, /lspgate call/);
      assert.match(ran.stdout, /lspgate mcp/);
    },
  },
  {
    pattern: /^lspgate call (definition|hover) file=src\/main\.ts line=\d+ symbol=\w+$/,
    async run(scene) {
      await installLspgate(scene);
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.cwd });
      assert.equal(ran.code, 0, `${scene.filled}\n${ran.stderr}`);
      if (scene.filled.includes(" definition ")) {
        const at = await greet(scene.ws);
        assert.match(ran.stdout, new RegExp(`src/greet\\.ts:${at.line}:${at.column}`));
      } else {
        assert.match(ran.stdout, /report\(title: string, shapes: Shape\[\]\): string/);
      }
    },
  },
  {
    pattern: /^lspgate daemon (start|status|stop)$/,
    async run(scene) {
      await installLspgate(scene);
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.cwd });
      assert.equal(ran.code, 0, `${scene.filled}\n${ran.stdout}\n${ran.stderr}`);
      if (scene.filled.endsWith("status")) {
        assert.match(plain(ran.stdout + ran.stderr), /running|pid/i);
      }
    },
  },
  {
    pattern: /^lspgate mcp( --daemon)?$/,
    lang: "sh",
    async run(scene) {
      await installLspgate(scene);
      await mcpAnswers(scene, scene.filled, scene.cwd);
    },
  },
  {
    ...jsonLinesRule(/^lspgate --role subagent$/, false),
    async run(scene, command) {
      await installLspgate(scene);
      await jsonLinesRule(/./, false).run!(scene, command);
    },
  },
  // The npm package: packed by its task, installed from the tarball into the reader's own npm
  // prefix (npm's cache serves the deno package), then `lspgate` is npm's.
  {
    pattern: /^npx -y deno@2 task pack$/,
    async run(scene) {
      const ran = await scene.reader.sh(scene.filled, { cwd: CHECKOUT });
      assert.equal(ran.code, 0, ran.stderr);
      const { version } = JSON.parse(
        await Deno.readTextFile(join(CHECKOUT, "integrations", "npm", "package.json")),
      );
      assert.ok(await Deno.stat(join(CHECKOUT, "dist", `lspgate-${version}.tgz`)));
    },
  },
  {
    pattern: /^npm install -g \/path\/to\/lspgate\/dist\/lspgate-[\d.]+\.tgz$/,
    async run(scene) {
      const prefix = join(scene.reader.home, ".npm-global");
      scene.reader.extraPath.unshift(join(prefix, "bin"));
      const ran = await scene.reader.sh(scene.filled, {
        cwd: scene.reader.home,
        env: { NPM_CONFIG_PREFIX: prefix, NPM_CONFIG_PREFER_OFFLINE: "true" },
      });
      assert.equal(ran.code, 0, ran.stdout + ran.stderr);
      const which = await scene.reader.sh("command -v lspgate", { cwd: scene.ws.root });
      assert.equal(which.stdout.trim(), join(prefix, "bin", "lspgate"));
      // Its grant is the start task's (plus the bundle's Worker flag), no more.
      const { GRANT } = await import(
        new URL("../../integrations/npm/bin/lspgate.mjs", import.meta.url).href
      );
      const { tasks } = JSON.parse(await Deno.readTextFile(join(CHECKOUT, "deno.json")));
      const start = (tasks.start as string).split(" ");
      assert.deepEqual(
        [...GRANT].sort(),
        ["--unstable-worker-options", ...start.slice(2, start.indexOf("mod.ts"))].sort(),
      );
      await mcpAnswers(scene, "lspgate mcp", scene.ws.root);
    },
  },
  {
    pattern: /^lspgate --version$/,
    async run(scene) {
      const ran = await scene.reader.sh(scene.filled, { cwd: scene.ws.root });
      assert.equal(ran.code, 0, ran.stderr);
      const { version } = JSON.parse(await Deno.readTextFile(join(CHECKOUT, "deno.json")));
      assert.equal(ran.stdout.trim(), `lspgate ${version}`);
    },
  },
  // The bundle, built by its task, then run from a folder that is not the checkout.
  {
    pattern: /^deno task bundle$/,
    async run(scene) {
      const ran = await scene.reader.sh(scene.filled, { cwd: CHECKOUT });
      assert.equal(ran.code, 0, ran.stderr);
      const elsewhere = join(scene.reader.home, "shipped");
      await Deno.mkdir(join(elsewhere, "dist"), { recursive: true });
      // dist/ as shipped: the bundle and the parsers beside it.
      await Deno.copyFile(
        join(CHECKOUT, "dist", "lspgate.js"),
        join(elsewhere, "dist", "lspgate.js"),
      );
      await Deno.mkdir(join(elsewhere, "dist", "parsers"));
      for await (const entry of Deno.readDir(join(CHECKOUT, "dist", "parsers"))) {
        await Deno.copyFile(
          join(CHECKOUT, "dist", "parsers", entry.name),
          join(elsewhere, "dist", "parsers", entry.name),
        );
      }
      // A tools folder above a bundle copied elsewhere is not lspgate's: never searched.
      await Deno.mkdir(join(elsewhere, ".lspgate", "tools", "bin"), { recursive: true });
      scene.notes.set("bundle", elsewhere);
    },
  },
  {
    pattern:
      /^deno run --unstable-worker-options \S+ --allow-read --allow-env --allow-run dist\/lspgate\.js --root \/path\/to\/project$/,
    async run(scene) {
      const elsewhere = scene.notes.get("bundle") as string;
      // A server installed nowhere here, planted where a copied bundle's parent would hold tools.
      const decoy = join(elsewhere, ".lspgate", "tools", "bin", "marksman");
      await Deno.writeTextFile(decoy, "#!/bin/sh\nexit 3\n", { mode: 0o755 });
      // Ruby has no server here: its outline comes from the parser the bundle carries.
      await scene.ws.write("shop.rb", "class Shop\n  def open\n    true\n  end\nend\n");
      const answers = await scene.reader.jsonLines(scene.filled, elsewhere, [
        DEFINITION,
        { id: 2, action: "servers" },
        { id: 3, action: "symbols", file: "shop.rb" },
      ], { NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/" });
      assert.deepEqual(ok(answers.get(1)).locations, [await greet(scene.ws)]);
      const adapters = ok(answers.get(2)).adapters as { id: string; command?: string }[];
      const marksman = adapters.find((a) => a.id === "marksman");
      assert.ok(marksman, "marksman is a shipped adapter");
      assert.ok(!String(marksman.command ?? "").startsWith(elsewhere), JSON.stringify(marksman));
      const outline = ok(answers.get(3));
      assert.equal(outline.syntaxOnly, true);
      assert.deepEqual(
        (outline.symbols as { name: string }[]).map((s) => s.name),
        ["Shop", "open"],
      );
    },
  },
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
    pattern: /^(lspgate|deno run .* mod\.ts) hook --root "\$CLAUDE_PROJECT_DIR"$/,
    async run(scene, command) {
      await installLspgate(scene);
      assertHookConfig(command.block, "PostToolUse");
      await scene.ws.write("src/main.ts", (await scene.ws.read("src/main.ts")) + BROKEN);
      const ran = await scene.reader.sh(scene.filled, {
        cwd: scene.ws.root,
        stdin: payload(scene, "PostToolUse"),
        env: { CLAUDE_PROJECT_DIR: scene.ws.root },
      });
      assert.equal(ran.code, 2, `exit ${ran.code}\n${ran.stdout}\n${ran.stderr}`);
      assert.match(ran.stderr, /src\/main\.ts/);
      assert.match(ran.stderr, /not assignable to type 'number'/);
    },
  },
  {
    pattern: /^(lspgate|deno run .* mod\.ts) hook --event stop --root "\$CLAUDE_PROJECT_DIR"$/,
    async run(scene, command) {
      assertHookConfig(command.block, "Stop");
      const ran = await scene.reader.sh(scene.filled, {
        cwd: scene.ws.root,
        stdin: payload(scene, "Stop"),
        env: { CLAUDE_PROJECT_DIR: scene.ws.root },
      });
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
function assertHookConfig(block: Block, event: "PostToolUse" | "Stop"): void {
  const hooks = (blockJson(block).hooks ?? {}) as Record<
    string,
    { matcher?: string; hooks: { type: string; command: string }[] }[]
  >;
  const entries = hooks[event];
  assert.ok(entries?.length, `the hook configuration has no ${event}`);
  assert.ok(entries.every((e) => e.hooks.every((h) => h.type === "command")));
  if (event === "PostToolUse") {
    assert.ok(entries.some((e) => /Edit/.test(e.matcher ?? "") && /Write/.test(e.matcher ?? "")));
  }
}
