import { join } from "node:path";
import {
  findNodeAtLocation,
  getNodeValue,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import { z } from "zod";
import { LspGateError } from "./errors.ts";
import { env } from "./fs.ts";
import { claudePluginServers, fromAgentLspConfig, isAgentLspConfig } from "./config_agents.ts";

const program = z.string().min(1).refine((name) => name.startsWith("/") || !name.includes("/"), {
  message: "must be an absolute path or a program name looked up on PATH " +
    "(a relative path would be resolved inside the workspace)",
});

/**
 * One entry of `servers`: a new server (`command` and `extensions` or `filenames`), or changes to
 * a shipped adapter, key by key.
 */
const serverSchema = z.strictObject({
  command: z.tuple([program], z.string()).optional(),
  extensions: z.array(
    z.string().regex(/^\.[^/\s]+$/, { message: 'each extension starts with a dot, e.g. ".nix"' }),
  ).min(1).optional(),
  filenames: z.array(
    z.string().regex(/^[^/\s]+$/, { message: "a file name, without folders" }),
  ).min(1).optional(),
  languageId: z.string().min(1).optional(),
  /** Each extension's language id, where they differ (`.tsx` → `typescriptreact`). */
  extensionToLanguage: z.record(z.string(), z.string().min(1)).optional(),
  rootMarkers: z.array(z.string().min(1)).optional(),
  initializationOptions: z.record(z.string(), z.unknown()).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  kind: z.enum(["language", "linter"]).optional(),
  /** Chosen over the other language servers of the same files (e.g. basedpyright over pyright). */
  preferred: z.boolean().optional(),
  disabled: z.boolean().optional(),
});

/** A `servers` entry of the config. */
export type ServerConfig = z.infer<typeof serverSchema>;

/** The config file's shape (JSONC). Every key is optional. */
export const configSchema = z.strictObject({
  role: z.enum(["main", "subagent"]).optional(),
  allowMutations: z.boolean().optional(),
  timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  startTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  readyTimeoutMs: z.number().int().min(0).max(600_000).default(15_000),
  idleShutdownMs: z.number().int().min(0).default(0),
  /**
   * The most the language servers' process trees may hold together (MiB); over it, idle servers
   * are stopped, least recently used first. Default: half the machine's memory; 0 = no budget.
   */
  memoryBudgetMiB: z.number().int().min(0).optional(),
  /**
   * Each server's client in a Worker of its own, allowed to spawn that server's binary and nothing
   * else: defence in depth beside the sandbox, at ~13 MiB and ~0.2 ms a query per server.
   */
  clientWorkers: z.boolean().default(false),
  /** A daemon nobody used for this long stops (ms; 0 = never). */
  daemonIdleMs: z.number().int().min(0).default(15 * 60_000),
  /**
   * How long a post-edit hook waits for diagnostics before it gives up quietly (ms). Default:
   * 1,500 on a warm daemon, 50,000 in-process (--no-daemon), where every run starts cold.
   */
  hookDeadlineMs: z.number().int().min(100).max(600_000).optional(),
  // Confined by default: bubblewrap where it can create namespaces, else Landlock, and said
  // plainly where neither works.
  sandbox: z.enum(["none", "bwrap", "landlock", "auto"]).default("auto"),
  readOnlyRoots: z.array(z.string()).default([]),
  /**
   * Roots whose own programs (node_modules/.bin, the project's TypeScript, tsconfig plugins, a
   * Python interpreter it names) may run, and then only sandboxed. Only from the user's config.
   */
  trustedRoots: z.array(z.string()).default([]),
  servers: z.record(z.string(), serverSchema).default({}),
});

/** lspgate's settings after defaults. */
export type LspGateConfig = z.infer<typeof configSchema>;

/** The defaults, for when no config file is given. */
export function defaultConfig(): LspGateConfig {
  return configSchema.parse({});
}

/** Options of loadConfig(). */
export interface LoadConfigOptions {
  /**
   * The ids of the shipped adapters: an entry of `servers` with another id must define a new
   * server (`command` and `extensions` or `filenames`); a near miss is named.
   */
  knownServers?: readonly string[];
}

/**
 * Reads and validates the user's JSONC config file. Every problem is INVALID_INPUT naming the
 * file, the line and the key (`config.jsonc:7: servers.pyrigth: …`).
 */
export async function loadConfig(
  path: string,
  options: LoadConfigOptions = {},
): Promise<LspGateConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new LspGateError(
      "FILE_NOT_FOUND",
      `cannot read config ${path}: ${error instanceof Error ? error.message : error}`,
    );
  }
  return parseConfig(text, path, options);
}

/** Validates a config's text; `file` names it in errors. */
export function parseConfig(
  text: string,
  file: string,
  options: LoadConfigOptions = {},
): LspGateConfig {
  const { tree, json: given } = parseJsonc(text, file);
  // Claude Code's .lsp.json, a plugin's lspServers, Copilot CLI's lsp.json: the user's servers
  // as those agents describe them.
  const json = isAgentLspConfig(given)
    ? fromAgentLspConfig(given as Record<string, unknown>, { file })
    : given;
  const parsed = configSchema.safeParse(json ?? {});
  const problems: Problem[] = parsed.success ? [] : parsed.error.issues.flatMap(issueProblems);
  if (parsed.success && options.knownServers) {
    problems.push(...unknownServers(parsed.data.servers, options.knownServers));
  }
  if (problems.length || !parsed.success) throw configError(file, text, tree, problems);
  return parsed.data;
}

/**
 * The user's config: `path` (from `--config`) or, without it, the user-level config file when
 * there is one (see userConfigPath), else the defaults.
 */
export async function loadUserConfig(
  path: string | undefined,
  options: LoadConfigOptions = {},
): Promise<LspGateConfig> {
  const file = path ?? await userConfigPath();
  const config = file === undefined ? defaultConfig() : await loadConfig(file, options);
  return withClaudePlugins(config, options.knownServers ?? []);
}

/**
 * The config with the servers of the user's installed Claude Code plugins added, where neither
 * the config nor a shipped adapter has that id (see claudePluginServers); an entry lspgate's
 * schema refuses is left out.
 */
async function withClaudePlugins(
  config: LspGateConfig,
  known: readonly string[],
): Promise<LspGateConfig> {
  const added: Record<string, ServerConfig> = {};
  for (const [id, entry] of Object.entries(await claudePluginServers())) {
    if (id in config.servers || known.includes(id)) continue;
    const parsed = serverSchema.safeParse(entry);
    if (parsed.success) added[id] = parsed.data;
  }
  return Object.keys(added).length
    ? { ...config, servers: { ...config.servers, ...added } }
    : config;
}

/**
 * The user-level config: `$XDG_CONFIG_HOME/lspgate/config.jsonc` (default
 * `~/.config/lspgate/config.jsonc`), or undefined when no such file exists.
 */
export async function userConfigPath(): Promise<string | undefined> {
  const home = env("HOME");
  const base = env("XDG_CONFIG_HOME") || (home ? join(home, ".config") : undefined);
  if (!base) return undefined;
  const path = join(base, "lspgate", "config.jsonc");
  try {
    return (await Deno.stat(path)).isFile ? path : undefined;
  } catch {
    return undefined;
  }
}

/** What a workspace's own `.lspgate.jsonc` may set: settings, never what runs. */
export interface WorkspaceConfig {
  file: string;
  timeoutMs?: number;
  startTimeoutMs?: number;
  readyTimeoutMs?: number;
  servers: Record<string, Pick<ServerConfig, "settings" | "initializationOptions">>;
}

/** The name of the config file a workspace may have at its root. */
export const WORKSPACE_CONFIG = ".lspgate.jsonc";

const WORKSPACE_TOP_KEYS = new Set(["timeoutMs", "startTimeoutMs", "readyTimeoutMs", "servers"]);
const WORKSPACE_SERVER_KEYS = new Set(["settings", "initializationOptions"]);
/**
 * Setting names that choose a program, an interpreter or a place outside the project
 * or its arguments (`python.pythonPath`, `bashIde.shellcheckPath`, `shellcheckArguments`,
 * `tsserver.path`, `venvPath`, `extraPaths`…).
 * Rationale: a denylist of every server's settings cannot be complete, so the names are matched
 * by their shape; such settings belong in the user's own config.
 */
const PROGRAM_SETTING =
  /(path|paths|dir|dirs|directory|command|cmd|args|arguments|executable|exe|binary|bin|interpreter|runtime|endpoint|url|uri|plugins?|tsdk|sdk|home|venv)$/i;

/**
 * Validates a workspace's `.lspgate.jsonc` text: it may set `settings` and
 * `initializationOptions` of known servers and lengthen timeouts, nothing that decides what runs
 * (`command`, `env`, `extensions`, roles, the sandbox…). Every problem names `file:line: key`.
 */
export function parseWorkspaceConfig(
  text: string,
  file: string,
  knownServers: readonly string[],
): WorkspaceConfig {
  const { tree, json } = parseJsonc(text, file);
  const problems: Problem[] = [];
  const value = json ?? {};
  if (!isObject(value)) {
    problems.push({ path: [], message: "the config must be an object" });
    throw configError(file, text, tree, problems);
  }
  const onlyUser = "only your own config may set it (--config, or " +
    "~/.config/lspgate/config.jsonc): a repository does not choose what runs";
  for (const key of Object.keys(value)) {
    if (!WORKSPACE_TOP_KEYS.has(key)) {
      const known = Object.hasOwn(configSchema.shape, key);
      problems.push({
        path: [key],
        message: known ? `not allowed in a workspace config; ${onlyUser}` : "unknown key",
        key: true,
      });
    }
  }
  const servers = value.servers;
  if (isObject(servers)) {
    for (const [id, entry] of Object.entries(servers)) {
      if (!knownServers.includes(id)) {
        problems.push({
          path: ["servers", id],
          message: unknownIdMessage(id, knownServers, false),
          key: true,
        });
        continue;
      }
      if (!isObject(entry)) continue;
      for (const key of Object.keys(entry)) {
        if (WORKSPACE_SERVER_KEYS.has(key)) continue;
        const known = Object.hasOwn(serverSchema.shape, key);
        problems.push({
          path: ["servers", id, key],
          message: known ? `not allowed in a workspace config; ${onlyUser}` : "unknown key",
          key: true,
        });
      }
      for (const key of WORKSPACE_SERVER_KEYS) {
        for (const path of programSettings(entry[key], ["servers", id, key])) {
          problems.push({
            path,
            message: `names a program or a path; ${onlyUser} or reads outside it`,
            key: true,
          });
        }
      }
    }
  }
  const schema = z.strictObject({
    timeoutMs: configSchema.shape.timeoutMs.unwrap().optional(),
    startTimeoutMs: configSchema.shape.startTimeoutMs.unwrap().optional(),
    readyTimeoutMs: configSchema.shape.readyTimeoutMs.unwrap().optional(),
    servers: z.record(
      z.string(),
      serverSchema.pick({ settings: true, initializationOptions: true }),
    )
      .optional(),
  });
  if (problems.length === 0) {
    const parsed = schema.safeParse(value);
    if (!parsed.success) problems.push(...parsed.error.issues.flatMap(issueProblems));
    else return { file, ...parsed.data, servers: parsed.data.servers ?? {} };
  }
  throw configError(file, text, tree, problems);
}

/**
 * The user's config with a workspace config applied: its server settings layered under the
 * user's, its timeouts taken where longer (a big project may need more time; a repository cannot
 * shorten what the user chose).
 */
export function withWorkspaceConfig(
  config: LspGateConfig,
  workspace: WorkspaceConfig | undefined,
): LspGateConfig {
  if (!workspace) return config;
  const longer = (mine: number, theirs?: number) => Math.max(mine, theirs ?? 0);
  return {
    ...config,
    timeoutMs: longer(config.timeoutMs, workspace.timeoutMs),
    startTimeoutMs: longer(config.startTimeoutMs, workspace.startTimeoutMs),
    readyTimeoutMs: longer(config.readyTimeoutMs, workspace.readyTimeoutMs),
  };
}

// ---------------------------------------------------------------------------------------------

interface Problem {
  path: (string | number)[];
  message: string;
  /** Point at the key itself (an unknown or refused key), not its value. */
  key?: boolean;
}

function issueProblems(issue: z.core.$ZodIssue): Problem[] {
  const path = issue.path.map((p) => typeof p === "symbol" ? String(p) : p);
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({ path: [...path, key], message: "unknown key", key: true }));
  }
  return [{ path, message: issue.message }];
}

function unknownServers(
  servers: Record<string, ServerConfig>,
  known: readonly string[],
): Problem[] {
  const problems: Problem[] = [];
  for (const [id, entry] of Object.entries(servers)) {
    if (known.includes(id)) continue;
    if (entry.command && (entry.extensions || entry.filenames)) continue;
    problems.push({ path: ["servers", id], message: unknownIdMessage(id, known, true), key: true });
  }
  return problems;
}

function unknownIdMessage(id: string, known: readonly string[], canDefine: boolean): string {
  const near = nearest(id, known);
  return `unknown server` + (near ? `; did you mean "${near}"?` : ".") +
    (canDefine
      ? ` A new server needs "command" and "extensions" (or "filenames"). Known: ${
        known.join(", ")
      }.`
      : ` Known: ${known.join(", ")}.`);
}

/** The known id closest to `id` by edit distance, when close enough to be a typo. */
function nearest(id: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(id.toLowerCase(), name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(id.length / 2)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * Where inside a settings value something names a program, its arguments or a place outside the
 * project: a key shaped like PROGRAM_SETTING, a key that is a path or URL (yaml.schemas maps
 * schema URLs to globs), or a string that is an absolute path, `~`, `..` or a URL.
 */
function programSettings(value: unknown, at: (string | number)[]): (string | number)[][] {
  if (typeof value === "string") return OUTSIDE_VALUE.test(value) ? [at] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => programSettings(item, [...at, i]));
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    PROGRAM_SETTING.test(key) || /[/:\\]/.test(key)
      ? [[...at, key]]
      : programSettings(inner, [...at, key])
  );
}

/** A string value naming a place outside the project: absolute, home, parent, or a URL. */
const OUTSIDE_VALUE = /^(\/|~|\.\.(\/|$)|[a-z][a-z0-9+.-]*:)/i;

function parseJsonc(text: string, file: string): { tree: Node | undefined; json: unknown } {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true });
  if (errors.length) {
    const first = errors[0];
    const { line, column } = lineColumn(text, first.offset);
    throw new LspGateError(
      "INVALID_INPUT",
      `config ${file}:${line}:${column}: ${printParseErrorCode(first.error)}`,
      { file, line },
    );
  }
  return { tree, json: tree ? getNodeValue(tree) : undefined };
}

function configError(
  file: string,
  text: string,
  tree: Node | undefined,
  problems: Problem[],
): LspGateError {
  const lines = problems.map((problem) => {
    const line = problemLine(text, tree, problem);
    const key = problem.path.join(".") || "(top level)";
    return { line, text: `${file}:${line}: ${key}: ${problem.message}` };
  }).sort((a, b) => a.line - b.line);
  const head = lines.length === 1 ? "config " : `config has ${lines.length} problems:\n`;
  return new LspGateError("INVALID_INPUT", head + lines.map((l) => l.text).join("\n"), {
    file,
    problems: lines.map((l) => l.text),
  });
}

/** The 1-based line of the key (or value) a problem is about, or of its nearest present parent. */
function problemLine(text: string, tree: Node | undefined, problem: Problem): number {
  if (!tree) return 1;
  for (let path = problem.path; path.length >= 0; path = path.slice(0, -1)) {
    const node = findNodeAtLocation(tree, path);
    if (node) {
      // A property's value node has the property as parent, whose first child is the key.
      const at = problem.key && path.length === problem.path.length &&
          node.parent?.type === "property"
        ? node.parent.children![0]
        : node;
      return lineColumn(text, at.offset).line;
    }
    if (path.length === 0) break;
  }
  return 1;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
