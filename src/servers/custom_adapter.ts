import { basename, extname } from "../posix_path.ts";
import type { Adapter } from "./adapter.ts";
import { commandAdapter } from "./command_adapter.ts";
import type { LspGateConfig, ServerConfig } from "../config_schema.ts";
import { withWorkspaceConfig, WORKSPACE_CONFIG, type WorkspaceConfig } from "../config_layering.ts";
import { LspGateError } from "../errors.ts";
import type { WorkspaceRoot } from "../permissions/workspace.ts";
import { mergeSettings } from "./manager.ts";

/**
 * A session's adapters and config: the user's config applied to the adapters (see
 * configuredAdapters), and the workspace's own `.lspgate.jsonc` read and applied where allowed.
 */
export async function configureServers(
  adapters: readonly Adapter[],
  config: LspGateConfig,
  workspace: WorkspaceRoot,
): Promise<{ adapters: Adapter[]; config: LspGateConfig; notices: string[] }> {
  const known = [...new Set([...adapters.map((a) => a.id), ...Object.keys(config.servers)])];
  const notices: string[] = [];
  let local: WorkspaceConfig | undefined;
  try {
    local = await readWorkspaceConfig(workspace, known);
  } catch (error) {
    // A repository's config is the repository's input, not the user's: one lspgate refuses is
    // ignored whole (with a note) rather than keeping lspgate from starting, whatever the role.
    if (!(error instanceof LspGateError)) throw error;
    notices.push(`${WORKSPACE_CONFIG} ignored: ${error.message}`);
    console.error(`lspgate: ${notices[0]}`);
  }
  return {
    adapters: configuredAdapters(adapters, config.servers, local),
    config: withWorkspaceConfig(config, local),
    notices,
  };
}

/**
 * The adapters a session uses: the shipped ones with the user's config applied key by key, then
 * the servers the user's config adds (an entry with `command` and `extensions` or `filenames`
 * under an id no adapter has). A workspace config's settings and initializationOptions are
 * layered in under the user's.
 *
 * The user's `settings` and `initializationOptions` are not folded in here: the manager layers
 * them last, over what an adapter pins at start (the interpreter, tsserver's path).
 */
export function configuredAdapters(
  adapters: readonly Adapter[],
  servers: Record<string, ServerConfig>,
  workspace?: WorkspaceConfig,
): Adapter[] {
  const result = adapters.map((adapter) =>
    overridden(adapter, servers[adapter.id], workspace?.servers[adapter.id])
  );
  for (const [id, entry] of Object.entries(servers)) {
    if (adapters.some((a) => a.id === id) || !entry.command) continue;
    if (!entry.extensions && !entry.filenames) continue;
    const custom = customAdapter(id, { ...entry, command: entry.command });
    const local = workspace && Object.hasOwn(workspace.servers, id)
      ? workspace.servers[id]
      : undefined;
    result.push(overridden(custom, undefined, local));
  }
  return result;
}

/** A server added in the user's config, with no code: found by `command`, for its files. */
export function customAdapter(
  id: string,
  entry: ServerConfig & { command: [string, ...string[]] },
): Adapter {
  const [program, ...args] = entry.command;
  const kind = entry.kind ?? "language";
  return {
    ...commandAdapter({
      id,
      command: [program, ...args],
      kind,
      languages: entry.extensionToLanguage
        ? lowerKeys(entry.extensionToLanguage)
        : languagesOf(entry.extensions ?? [], entry.languageId),
      filenames: filenamesOf(entry.filenames ?? [], entry.languageId),
      rootMarkers: entry.rootMarkers ?? [],
      installHint: `Install ${program}, or fix "command" of servers.${id} in your config.`,
      env: entry.env,
      tested: false,
      origin: "config",
    }),
    // A language server the user added for files a shipped one handles is the one they want.
    preferred: entry.preferred ?? kind === "language",
  };
}

/** An adapter with a `servers` entry of the user's config (and a workspace's settings) applied. */
function overridden(
  adapter: Adapter,
  entry: ServerConfig | undefined,
  workspace: WorkspaceConfig["servers"][string] | undefined,
): Adapter {
  if (!entry && !workspace) return adapter;
  // A command, extensions or settings of the user's or the workspace's may index other files.
  const changed: Adapter = { ...adapter, symbolIndex: undefined };
  if (entry?.extensionToLanguage) {
    changed.languages = lowerKeys(entry.extensionToLanguage);
  } else if (entry?.extensions) {
    const fallback = entry.languageId ?? Object.values(adapter.languages)[0];
    changed.languages = Object.fromEntries(
      entry.extensions.map((ext) => [ext, adapter.languages[ext] ?? fallback ?? ext.slice(1)]),
    );
  } else if (entry?.languageId) {
    changed.languages = languagesOf(Object.keys(adapter.languages), entry.languageId);
  }
  if (entry?.filenames) changed.filenames = filenamesOf(entry.filenames, entry.languageId);
  if (entry?.rootMarkers) changed.rootMarkers = entry.rootMarkers;
  if (entry?.kind) changed.kind = entry.kind;
  if (entry?.preferred !== undefined) changed.preferred = entry.preferred;
  if (entry?.env) changed.env = { ...adapter.env, ...entry.env };
  const locked = adapter.locked;
  if (workspace?.settings) {
    changed.settings = mergeSettings(adapter.settings, workspace.settings, locked?.settings);
  }
  if (workspace?.initializationOptions) {
    changed.initializationOptions = mergeSettings(
      asRecord(adapter.initializationOptions),
      workspace.initializationOptions,
      locked?.initializationOptions,
    );
  }
  return changed;
}

/**
 * Reads the workspace's own `.lspgate.jsonc`, through the workspace boundary (a symlink out of
 * the root is refused as any path is); undefined when there is none.
 */
export async function readWorkspaceConfig(
  workspace: WorkspaceRoot,
  knownServers: readonly string[],
): Promise<WorkspaceConfig | undefined> {
  let text: string;
  try {
    text = await workspace.readText(await workspace.resolve(WORKSPACE_CONFIG));
  } catch (error) {
    if (error instanceof LspGateError && error.code === "FILE_NOT_FOUND") return undefined;
    throw error;
  }
  // Checked by zod's schemas and read by jsonc-parser, loaded only where there is such a file.
  const { parseWorkspaceConfig } = await import("../config_workspace.ts");
  return parseWorkspaceConfig(text, `${workspace.path}/${WORKSPACE_CONFIG}`, knownServers);
}

function languagesOf(extensions: string[], languageId?: string): Record<string, string> {
  return Object.fromEntries(
    extensions.map((ext) => [ext.toLowerCase(), languageId ?? ext.slice(1).toLowerCase()]),
  );
}

function lowerKeys(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([ext, id]) => [ext.toLowerCase(), id]));
}

function filenamesOf(names: string[], languageId?: string): Record<string, string> {
  return Object.fromEntries(
    names.map((name) => [
      basename(name),
      languageId ?? (extname(name).slice(1) || name.replace(/^\./, "")).toLowerCase(),
    ]),
  );
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}
