// Other agents' language-server configs, read as lspgate's user config: Claude Code's `.lsp.json`
// (and a plugin's `lspServers`), and GitHub Copilot CLI's `lsp.json` / `lsp-config.json`. Only
// the user's own files are read (`--config FILE`, the plugins installed under ~/.claude), never
// one inside a workspace: a repository does not choose what runs.
import { isAbsolute, join, resolve } from "./posix_path.ts";
import { parseJsonc } from "./jsonc.ts";
import { LspGateError } from "./errors.ts";
import { claudeConfigDir } from "./config_source.ts";

/**
 * The keys of one server entry: Claude Code's (`extensionToLanguage`) and Copilot CLI's
 * (`fileExtensions`), and what lspgate does with each.
 */
const USED_KEYS = new Set([
  "command",
  "args",
  "extensionToLanguage",
  "fileExtensions",
  "env",
  "initializationOptions",
  "settings",
  "startupTimeout",
  "transport",
]);
/**
 * Keys accepted and left to lspgate's own policy: its restart back-off, its shutdown grace, its
 * workspace folder (the root), Copilot's install pin.
 */
const POLICY_KEYS = new Set([
  "shutdownTimeout",
  "restartOnCrash",
  "maxRestarts",
  "workspaceFolder",
  "loggingConfig",
  "version",
  "rootUri",
]);

/**
 * Whether a parsed config is another agent's LSP config rather than lspgate's: an object with
 * `lspServers` (Copilot CLI, a Claude Code plugin.json), or whose every value is a server entry
 * with `command` and `extensionToLanguage` or `fileExtensions` (Claude Code's `.lsp.json`).
 */
export function isAgentLspConfig(json: unknown): boolean {
  if (!isObject(json)) return false;
  if ("lspServers" in json) return true;
  const values = Object.values(json);
  return values.length > 0 && values.every((entry) =>
    isObject(entry) && "command" in entry &&
    ("extensionToLanguage" in entry || "fileExtensions" in entry)
  );
}

/** Where an agent's config came from, for `${CLAUDE_PLUGIN_ROOT}` and for errors. */
export interface AgentConfigSource {
  /** The file, named in errors. */
  file: string;
  /** A Claude Code plugin's folder: `${CLAUDE_PLUGIN_ROOT}` in commands and env expands to it. */
  pluginRoot?: string;
  /** Whether the servers are chosen over shipped adapters for the same files (default: yes). */
  preferred?: boolean;
}

/**
 * Translates an agent's LSP config into lspgate's config object (`servers`, and
 * `startTimeoutMs` from the longest `startupTimeout`), for configSchema to validate. A key
 * lspgate cannot honour (`transport: "socket"`, an unknown key) is INVALID_INPUT naming
 * `file: key`.
 */
export function fromAgentLspConfig(
  json: Record<string, unknown>,
  source: AgentConfigSource,
): Record<string, unknown> {
  let entries: Record<string, unknown> = json;
  let prefix = "";
  if ("lspServers" in json) {
    if (typeof json.lspServers === "string") {
      throw invalid(
        source,
        "lspServers",
        `names a file (${json.lspServers}): give that file to --config`,
      );
    }
    if (!isObject(json.lspServers)) throw invalid(source, "lspServers", "must be an object");
    entries = json.lspServers;
    prefix = "lspServers.";
  }
  const servers: Record<string, unknown> = {};
  let startTimeoutMs: number | undefined;
  for (const [id, entry] of Object.entries(entries)) {
    const at = `${prefix}${id}`;
    if (!isObject(entry)) throw invalid(source, at, "must be an object");
    for (const key of Object.keys(entry)) {
      if (!USED_KEYS.has(key) && !POLICY_KEYS.has(key)) {
        throw invalid(source, `${at}.${key}`, "unknown key");
      }
    }
    if (entry.transport !== undefined && entry.transport !== "stdio") {
      throw invalid(
        source,
        `${at}.transport`,
        "lspgate speaks to servers over stdio only (its sandbox gives them no sockets)",
      );
    }
    if (typeof entry.command !== "string" || entry.command === "") {
      throw invalid(source, `${at}.command`, "must be a program name or path");
    }
    const args = entry.args ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) {
      throw invalid(source, `${at}.args`, "must be a list of strings");
    }
    const languages = entry.extensionToLanguage ?? entry.fileExtensions;
    if (!isObject(languages) || Object.keys(languages).length === 0) {
      throw invalid(
        source,
        `${at}.extensionToLanguage`,
        'must map extensions to language ids ({".py": "python"})',
      );
    }
    const extensionToLanguage: Record<string, string> = {};
    for (const [ext, language] of Object.entries(languages)) {
      if (typeof language !== "string") {
        throw invalid(source, `${at}.extensionToLanguage.${ext}`, "must be a language id");
      }
      // Both agents write extensions with their dot; a bare one is taken as meant.
      extensionToLanguage[ext.startsWith(".") ? ext : `.${ext}`] = language;
    }
    const server: Record<string, unknown> = {
      command: [program(entry.command, source), ...args.map((a) => expand(a, source))],
      extensions: Object.keys(extensionToLanguage),
      extensionToLanguage,
    };
    if (isObject(entry.env)) {
      server.env = Object.fromEntries(
        Object.entries(entry.env).map((
          [k, v],
        ) => [k, typeof v === "string" ? expand(v, source) : v]),
      );
    } else if (entry.env !== undefined) server.env = entry.env;
    if (entry.initializationOptions !== undefined) {
      server.initializationOptions = entry.initializationOptions;
    }
    if (entry.settings !== undefined) server.settings = entry.settings;
    if (source.preferred !== undefined) server.preferred = source.preferred;
    if (typeof entry.startupTimeout === "number") {
      startTimeoutMs = Math.max(startTimeoutMs ?? 0, entry.startupTimeout);
    }
    servers[id] = server;
  }
  return startTimeoutMs === undefined ? { servers } : { servers, startTimeoutMs };
}

/**
 * The language servers of the user's installed Claude Code plugins: each user-scope plugin in
 * `installed_plugins.json` under `$CLAUDE_CONFIG_DIR` (default `~/.claude`) that settings.json
 * does not disable, from its plugin.json's `lspServers` (inline or a file) or its `.lsp.json`.
 * Not preferred over lspgate's shipped adapters (tested ones) for the same files. A plugin whose
 * files cannot be read or are not valid is left out; none is read from a workspace.
 */
export async function claudePluginServers(): Promise<Record<string, unknown>> {
  const base = claudeConfigDir();
  if (!base) return {};
  const installed = await readJson(join(base, "plugins", "installed_plugins.json"));
  if (!isObject(installed) || !isObject(installed.plugins)) return {};
  const settings = await readJson(join(base, "settings.json"));
  const enabled = isObject(settings) && isObject(settings.enabledPlugins)
    ? settings.enabledPlugins
    : {};
  const servers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(installed.plugins)) {
    if (enabled[name] === false) continue;
    // Version 2 lists installs per scope; version 1 one object per plugin.
    for (const install of Array.isArray(value) ? value : [value]) {
      if (!isObject(install) || typeof install.installPath !== "string") continue;
      if (install.scope !== undefined && install.scope !== "user") continue;
      const found = await pluginServers(install.installPath).catch(() => ({}));
      Object.assign(servers, found);
    }
  }
  return servers;
}

/** One plugin folder's servers, translated (preferred: false). */
async function pluginServers(root: string): Promise<Record<string, unknown>> {
  const manifest = await readJson(join(root, ".claude-plugin", "plugin.json"));
  let file = join(root, ".lsp.json");
  let json = await readJson(file);
  if (isObject(manifest) && manifest.lspServers !== undefined) {
    if (typeof manifest.lspServers === "string") {
      file = resolve(root, manifest.lspServers);
      json = await readJson(file);
    } else {
      file = join(root, ".claude-plugin", "plugin.json");
      json = { lspServers: manifest.lspServers };
    }
  }
  if (!isObject(json) || !isAgentLspConfig(json)) return {};
  const translated = fromAgentLspConfig(json, { file, pluginRoot: root, preferred: false });
  return translated.servers as Record<string, unknown>;
}

/** A command: `${CLAUDE_PLUGIN_ROOT}` expanded; a relative path only inside a plugin. */
function program(command: string, source: AgentConfigSource): string {
  const expanded = expand(command, source);
  if (expanded.includes("/") && !isAbsolute(expanded) && source.pluginRoot) {
    return resolve(source.pluginRoot, expanded);
  }
  return expanded;
}

function expand(text: string, source: AgentConfigSource): string {
  if (!source.pluginRoot) return text;
  return text.replaceAll("${CLAUDE_PLUGIN_ROOT}", source.pluginRoot);
}

function invalid(source: AgentConfigSource, key: string, message: string): LspGateError {
  return new LspGateError("INVALID_INPUT", `config ${source.file}: ${key}: ${message}`, {
    file: source.file,
    key,
  });
}

async function readJson(path: string): Promise<unknown> {
  try {
    return await parseJsonc(await Deno.readTextFile(path));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
