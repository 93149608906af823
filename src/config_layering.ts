// A workspace's own `.lspgate.jsonc` as a session layers it under the user's config: its shape
// and name, without what reads and checks it (config_workspace.ts, which loads zod's schemas
// and jsonc-parser only where the file exists).
import type { LspGateConfig, ServerConfig } from "./config_schema.ts";

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
