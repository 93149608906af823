// A reader following the documentation: a fresh HOME (and runtime folder), the documented
// commands run through bash exactly as written, with only the documented placeholders filled in.
import assert from "node:assert/strict";
import { stripVTControlCharacters } from "node:util";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { REPO_ROOT } from "../helpers/program.ts";
import type { TempWorkspace } from "../helpers/workspace.ts";
import { type DocCommand, documentedCommands } from "./extract.ts";

/** The checkout, without its trailing slash, for `/path/to/lspgate`. */
export const CHECKOUT = REPO_ROOT.replace(/\/$/, "");

/** deno.json's start task, and its `deno run` flags (the grant every front end runs under). */
export async function startTask(): Promise<{ text: string; grant: string[] }> {
  const { tasks } = JSON.parse(await Deno.readTextFile(join(CHECKOUT, "deno.json")));
  const words = (tasks.start as string).split(" ");
  return { text: tasks.start, grant: words.slice(2, words.indexOf("mod.ts")) };
}

/** What a command printed and how it ended. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** A reader's machine: a fresh HOME and runtime folder, PATH with Deno and the extra folders. */
export class Reader {
  private constructor(
    readonly home: string,
    readonly runtime: string,
    readonly denoDir: string,
    readonly extraPath: string[],
  ) {}

  /** A fresh HOME; Deno's module cache is the machine's (no package downloaded again). */
  static async create(): Promise<Reader> {
    const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_reader_home_" }));
    const runtime = await Deno.makeTempDir({ prefix: "lspgate_reader_run_" });
    await Deno.chmod(runtime, 0o700);
    const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
    const denoDir = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir as string;
    return new Reader(home, runtime, denoDir, []);
  }

  /** The environment the reader's shell has: no test-only variable (LSPGATE_NO_DAEMON). */
  env(extra: Record<string, string> = {}): Record<string, string> {
    const env = Deno.env.toObject();
    delete env.LSPGATE_NO_DAEMON;
    delete env.LSPGATE_RUST_TESTS;
    // Set by `deno task test` for its own folder; a reader's shell has none.
    delete env.INIT_CWD;
    return {
      ...env,
      HOME: this.home,
      XDG_RUNTIME_DIR: this.runtime,
      XDG_CONFIG_HOME: join(this.home, ".config"),
      XDG_DATA_HOME: join(this.home, ".local", "share"),
      DENO_DIR: this.denoDir,
      NO_COLOR: "1",
      PATH: [
        ...this.extraPath,
        join(this.home, ".deno", "bin"),
        dirname(Deno.execPath()),
        env.PATH ?? "",
      ].join(":"),
      ...extra,
    };
  }

  /** Runs `command` with bash in `cwd`, `stdin` written and closed; `timeoutMs` kills it. */
  async sh(
    command: string,
    options: { cwd: string; stdin?: string; env?: Record<string, string>; timeoutMs?: number },
  ): Promise<Ran> {
    const child = new Deno.Command("bash", {
      args: ["-c", command],
      cwd: options.cwd,
      env: this.env(options.env),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 180_000);
    try {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(options.stdin ?? ""));
      await writer.close();
      const out = await child.output();
      const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
      return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs a JSON-lines command, writes `requests`, closes stdin: the answers by id. */
  async jsonLines(
    command: string,
    cwd: string,
    requests: Record<string, unknown>[],
    env?: Record<string, string>,
  ): Promise<Map<number, Answer>> {
    const ran = await this.sh(command, {
      cwd,
      env,
      stdin: requests.map((r) => JSON.stringify(r) + "\n").join(""),
    });
    assert.equal(ran.code, 0, `${command}\nexit ${ran.code}\n${ran.stderr}`);
    const lines = ran.stdout.trim().split("\n").filter(Boolean);
    return new Map(lines.map((line) => JSON.parse(line) as Answer).map((a) => [a.id, a]));
  }

  /** An MCP SDK client over `command` run by bash in `cwd`; closed by the caller. */
  async mcp(command: string, cwd: string): Promise<Client> {
    const transport = new StdioClientTransport({
      command: "bash",
      args: ["-c", command],
      cwd,
      env: this.env(),
      stderr: "pipe",
    });
    const client = new Client({ name: "lspgate-docs-test", version: "0" });
    await client.connect(transport);
    return client;
  }

  /** Removes the HOME and the runtime folder. */
  async remove(): Promise<void> {
    await Deno.remove(this.home, { recursive: true }).catch(() => {});
    await Deno.remove(this.runtime, { recursive: true }).catch(() => {});
  }
}

/** One protocol answer. */
export type Answer = {
  id: number;
  ok: boolean;
  content?: { text: string }[];
  details: Record<string, unknown>;
  error?: { code: string; message: string };
};

/** The answer's details, or a failure naming the answer. */
export function ok(answer: Answer | undefined): Record<string, unknown> {
  assert.equal(answer?.ok, true, JSON.stringify(answer));
  return answer!.details;
}

/** The documented placeholders filled in: lspgate's checkout, the project, Deno through npx. */
export function fill(text: string, project: string): string {
  return text
    .replaceAll("/path/to/lspgate", CHECKOUT)
    .replaceAll("/path/to/project", project)
    .replaceAll("/work/project", project)
    // `npx -y deno@2` is the Deno 2 this test runs under.
    .replace(/^npx -y deno@2 /, Deno.version.deno.startsWith("2.") ? "deno " : "npx -y deno@2 ");
}

/** What one block's commands share: the reader, the project, the folder `cd` chose, notes. */
export interface Scene {
  reader: Reader;
  ws: TempWorkspace;
  cwd: string;
  notes: Map<string, unknown>;
  /** The documented command with its placeholders filled in. */
  filled: string;
}

/** How a documented command is run and checked, or why it is not run here. */
export interface Rule {
  pattern: RegExp;
  /** Only commands from blocks of this language (e.g. the TOML one). */
  lang?: string;
  skip?: string;
  run?: (scene: Scene, command: DocCommand) => Promise<void>;
}

/**
 * `lspgate` on the reader's PATH by the README's own install command (taken from its text), run
 * once per HOME; returns the installed program.
 */
export async function installLspgate(scene: Scene): Promise<string> {
  const program = join(scene.reader.home, ".deno", "bin", "lspgate");
  if (await Deno.stat(program).then(() => true, () => false)) return program;
  const readme = await Deno.readTextFile(join(CHECKOUT, "README.md"));
  const install = documentedCommands(readme, "README.md")
    .find((c) => c.text.startsWith("deno install -g "));
  assert.ok(install, "the README gives no `deno install -g` command");
  const ran = await scene.reader.sh(fill(install.text, scene.ws.root), { cwd: scene.reader.home });
  assert.equal(ran.code, 0, `${install.text}\n${ran.stderr}`);
  assert.ok(await Deno.stat(program).then((i) => i.isFile, () => false), ran.stderr);
  return program;
}

/** Where `greet` is defined in the deno fixture. */
export const greet = (ws: TempWorkspace) =>
  ws.within("src/greet.ts", "export function greet", "greet");
export const DEFINITION = {
  id: 1,
  action: "definition",
  file: "src/main.ts",
  line: 7,
  symbol: "greet",
};
export const RENAME = {
  id: 2,
  action: "rename",
  file: "src/greet.ts",
  query: "greet",
  new_name: "welcome",
  apply: true,
};

/** A JSON-lines command asked a definition and an apply: right location, role respected. */
export function jsonLinesRule(
  pattern: RegExp,
  mutations: boolean,
  cwd?: "project" | "checkout",
): Rule {
  return {
    pattern,
    async run(scene) {
      // Before the apply renames it.
      const expected = await greet(scene.ws);
      const answers = await scene.reader.jsonLines(
        scene.filled,
        cwd === "project" ? scene.ws.root : cwd === "checkout" ? CHECKOUT : scene.cwd,
        [DEFINITION, RENAME, { id: 3, action: "status" }],
      );
      assert.deepEqual(ok(answers.get(1)).locations, [expected]);
      assert.equal(ok(answers.get(3)).root, scene.ws.root);
      if (mutations) {
        assert.equal(ok(answers.get(2)).applied, true);
        assert.match(await scene.ws.read("src/main.ts"), /welcome\(名前\)/);
      } else {
        assert.equal(answers.get(2)?.error?.code, "ACTION_NOT_ALLOWED", JSON.stringify(answers));
        assert.match(await scene.ws.read("src/main.ts"), /greet\(名前\)/);
      }
    },
  };
}

/** A command that must exit 0 with its output matching `expect`. */
export function succeeds(pattern: RegExp, expect: RegExp, cwd: "project" | "checkout"): Rule {
  return {
    pattern,
    async run(scene) {
      const ran = await scene.reader.sh(scene.filled, {
        cwd: cwd === "project" ? scene.ws.root : CHECKOUT,
      });
      assert.equal(ran.code, 0, `${scene.filled}\n${ran.stderr}`);
      assert.match(stripVTControlCharacters(ran.stdout + ran.stderr), expect);
    },
  };
}

/** An MCP client over `command` lists the `lsp` tool and answers a definition right. */
export async function mcpAnswers(scene: Scene, command: string, cwd: string): Promise<void> {
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
