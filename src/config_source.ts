// Where the user's config comes from, found without loading its parser: a command line with no
// config file to read (the common case) starts lspgate without zod and jsonc-parser.
import { join } from "./posix_path.ts";
import { env } from "./fs.ts";
import type { LspGateConfig } from "./config_schema.ts";

/**
 * The config when there is nothing to read: configSchema's defaults, written out so that the
 * schema need not load (config_source_test checks they are the schema's own).
 */
export function defaultsWithoutSchema(): LspGateConfig {
  return {
    timeoutMs: 30_000,
    startTimeoutMs: 30_000,
    readyTimeoutMs: 15_000,
    idleShutdownMs: 0,
    clientWorkers: false,
    daemonIdleMs: 15 * 60_000,
    sandbox: "auto",
    readOnlyRoots: [],
    trustedRoots: [],
    servers: {},
  };
}

/**
 * The user-level config: `$XDG_CONFIG_HOME/lspgate/config.jsonc` (default
 * `~/.config/lspgate/config.jsonc`), or undefined when no such file exists.
 */
export function userConfigPath(): string | undefined {
  const home = env("HOME");
  const base = env("XDG_CONFIG_HOME") || (home ? join(home, ".config") : undefined);
  if (!base) return undefined;
  const path = join(base, "lspgate", "config.jsonc");
  try {
    // In the thread (a stat opens nothing): awaited, each was a hop to Deno's blocking pool.
    return Deno.statSync(path).isFile ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Claude Code's folder (`$CLAUDE_CONFIG_DIR`, default `~/.claude`), where its plugins are listed. */
export function claudeConfigDir(): string | undefined {
  const home = env("HOME");
  return env("CLAUDE_CONFIG_DIR") || (home ? join(home, ".claude") : undefined);
}

/**
 * Whether the user's config has anything to read: `--config`, a user-level config file, or Claude
 * Code's list of installed plugins (whose language servers are added). When not, the config is
 * {@link defaultsWithoutSchema}.
 */
export function userConfigToRead(path: string | undefined): boolean {
  if (path !== undefined || userConfigPath() !== undefined) return true;
  const claude = claudeConfigDir();
  if (!claude) return false;
  try {
    Deno.statSync(join(claude, "plugins", "installed_plugins.json"));
    return true;
  } catch (error) {
    // Only a file known to be missing means nothing to read; anything else is left to the reader.
    return !(error instanceof Deno.errors.NotFound);
  }
}
