// A workspace's own `.lspgate.jsonc`: what a repository may set (server settings, longer
// timeouts), never what runs, and how it is layered under the user's config.
import * as z from "./zod.ts";
import { configSchema, serverSchema } from "./config_schema.ts";
import {
  configError,
  isObject,
  issueProblems,
  parseJsonc,
  type Problem,
  unknownIdMessage,
} from "./config_problems.ts";
import type { WorkspaceConfig } from "./config_layering.ts";
export { withWorkspaceConfig, WORKSPACE_CONFIG, type WorkspaceConfig } from "./config_layering.ts";

const WORKSPACE_TOP_KEYS = new Set(["timeoutMs", "startTimeoutMs", "readyTimeoutMs", "servers"]);
const WORKSPACE_SERVER_KEYS = new Set(["settings", "initializationOptions"]);
/**
 * Setting names that choose a program, an interpreter or a place outside the project
 * or its arguments (`python.pythonPath`, `bashIde.shellcheckPath`, `shellcheckArguments`,
 * `tsserver.path`, `venvPath`, `extraPaths`…), or the environment and flags the programs a
 * server runs get: gopls's `env` (`CC` runs for cgo on `go list`; `GOFLAGS`, `LD_PRELOAD`) and
 * `buildFlags` (`-toolexec`), rust-analyzer's `cargo.extraEnv` (`RUSTC_WRAPPER`, run by `cargo
 * metadata`) and `procMacro.server`, clangd's `fallbackFlags`, `typescript.npmLocation`, eslint's
 * `execArgv`; a config file to read instead (`deno.config`: one naming lint plugins the check
 * for them never saw, a helper's find), and where the network goes (`http.proxy`,
 * `handledSchemaProtocols`).
 * Rationale: a denylist of every server's settings cannot be complete, so the names are matched
 * by their shape; such settings belong in the user's own config.
 */
const PROGRAM_SETTING =
  /(path|paths|dir|dirs|directory|command|cmd|args|arguments|argv|executable|exe|binary|bin|interpreter|runtime|endpoint|url|uri|plugins?|tsdk|sdk|home|venv|env|environment|flags|location|server|sysroot|toolchain|wrapper|shell|loader|config|configs|configfile|proxy|protocols)$/i;

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
  // The user config's checks of these keys, without its defaults: a workspace leaves them unset.
  const { timeoutMs, startTimeoutMs, readyTimeoutMs } = configSchema.shape;
  const schema = z.strictObject({
    timeoutMs: z.optional(timeoutMs.def.innerType),
    startTimeoutMs: z.optional(startTimeoutMs.def.innerType),
    readyTimeoutMs: z.optional(readyTimeoutMs.def.innerType),
    servers: z.optional(z.record(
      z.string(),
      z.pick(serverSchema, { settings: true, initializationOptions: true }),
    )),
  });
  if (problems.length === 0) {
    const parsed = schema.safeParse(value);
    if (!parsed.success) problems.push(...parsed.error.issues.flatMap(issueProblems));
    else return { file, ...parsed.data, servers: parsed.data.servers ?? {} };
  }
  throw configError(file, text, tree, problems);
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

/**
 * A string value naming a place outside the project: absolute, home, a URL, or a path with a `..`
 * segment anywhere (`./../x`, `sub/../../x`: a helper's find, only a leading `..` was refused).
 */
const OUTSIDE_VALUE = /^(\/|\\|~|[a-z][a-z0-9+.-]*:)|(^|[/\\])\.\.([/\\]|$)/i;
