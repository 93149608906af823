// How the manager starts a server's client: the client's options, layered from the adapter, what
// it found at start, the sandbox's wrapping and the user's config.
import { toFileUrl } from "./uri.ts";
import type { ClientOptions } from "../lsp/client.ts";
import type { ServerCommand } from "./adapter.ts";
import { serverPath } from "./find_binary.ts";
import type { CommandWrapper, ManagerOptions, ServerEntry } from "./manager_types.ts";

/** The client options of `entry`'s server, started as `command` wrapped as `wrapped`. */
export function clientOptions(
  entry: ServerEntry,
  command: ServerCommand,
  wrapped: Awaited<ReturnType<CommandWrapper>>,
  options: ManagerOptions & {
    config?: NonNullable<ManagerOptions["serverConfig"]>[string];
    memoryCapMiB?: number;
  },
): ClientOptions {
  const config = options.config;
  return {
    serverName: entry.adapter.id,
    root: entry.root,
    rootUri: toFileUrl(entry.root),
    process: {
      command: wrapped.command,
      cwd: entry.root,
      // The server's PATH leaves out folders inside the workspace: what it runs by name
      // (python, node, go) is the user's, never the repository's.
      env: withPath(
        { ...entry.adapter.env, ...command.env, ...wrapped.env },
        serverPath(options.workspace),
      ),
      hideStderr: command.fromWorkspace,
    },
    installHint: entry.adapter.installHint,
    // Layered as settings are: the adapter's, what it found at start, the user's config.
    initializationOptions: layered(
      entry.adapter.initializationOptions,
      command.initializationOptions,
      config?.initializationOptions,
    ),
    settings: mergeSettings(entry.adapter.settings, command.settings, config?.settings),
    requestTimeoutMs: options.requestTimeoutMs,
    startTimeoutMs: options.startTimeoutMs,
    hideProcessId: wrapped.hideProcessId,
    readiness: entry.adapter.readiness,
    readinessScope: entry.adapter.readinessScope,
    stillCleanAfterMs: entry.adapter.stillCleanAfterMs,
    diagnosticsHook: entry.adapter.diagnosticsHook,
    fileScopedDiagnostics: entry.adapter.kind === "linter",
    indexProgressToken: entry.adapter.indexProgressToken,
    maxRequestsInFlight: entry.adapter.maxRequestsInFlight,
    extraCapabilities: entry.adapter.extraCapabilities,
    quiescentNotification: entry.adapter.quiescentNotification,
    readyLogMessage: entry.adapter.readyLogMessage,
    openAfterConfiguration: entry.adapter.openAfterConfiguration,
    recheckByReopen: entry.adapter.recheckByReopen,
    crossFilePattern: entry.adapter.crossFilePattern,
    wedgedBy: entry.adapter.wedgedBy,
    wedgedByLog: entry.adapter.wedgedByLog,
    ecmaLines: entry.adapter.ecmaLineBreaks && !command.lspLines,
    dropsBom: entry.adapter.dropsBom,
    host: hostOf(entry.adapter.hostEnv ?? []),
    ...(options.memoryCapMiB !== undefined ? { memoryCapMiB: options.memoryCapMiB } : {}),
  };
}

/** lspgate's platform and the variables `names` of its environment that are set. */
function hostOf(names: string[]): NonNullable<ClientOptions["host"]> {
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { os: Deno.build.os, arch: Deno.build.arch, env };
}

function withPath(env: Record<string, string>, path: string | undefined): Record<string, string> {
  return path === undefined || "PATH" in env ? env : { PATH: path, ...env };
}

/** Settings layered key by key (objects merged, anything else replaced), later layers winning. */
export function mergeSettings(
  ...layers: (Record<string, unknown> | undefined)[]
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer ?? {})) {
      const before = merged[key];
      merged[key] = isPlainObject(before) && isPlainObject(value)
        ? mergeSettings(before, value)
        : value;
    }
  }
  return merged;
}

/** Initialization options layered like settings; a layer that is not an object replaces. */
function layered(...layers: unknown[]): unknown {
  const present = layers.filter((layer) => layer !== undefined);
  if (present.length <= 1) return present[0];
  return present.every(isPlainObject) ? mergeSettings(...present) : present.at(-1);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
