// The user's config: found, read and validated, with the servers of Claude Code plugins added.
// Its schema, the problems it reports and a workspace's own config live in config_*.ts beside it.
import { LspGateError } from "./errors.ts";
import { userConfigPath } from "./config_source.ts";
import { claudePluginServers, fromAgentLspConfig, isAgentLspConfig } from "./config_agents.ts";
import {
  configSchema,
  defaultConfig,
  type LspGateConfig,
  type ServerConfig,
  serverSchema,
} from "./config_schema.ts";
import {
  configError,
  issueProblems,
  parseJsonc,
  type Problem,
  unknownServers,
} from "./config_problems.ts";
export { configSchema, defaultConfig } from "./config_schema.ts";
export { userConfigPath } from "./config_source.ts";
export type { LspGateConfig, ServerConfig } from "./config_schema.ts";
export { parseWorkspaceConfig, withWorkspaceConfig, WORKSPACE_CONFIG } from "./config_workspace.ts";
export type { WorkspaceConfig } from "./config_workspace.ts";

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
  const file = path ?? userConfigPath();
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
