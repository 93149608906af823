// The config file's shape: every key lspgate reads, with its defaults and limits.
import * as z from "./zod.ts";

const program = z.string().check(
  z.minLength(1),
  z.refine((name) => name.startsWith("/") || !name.includes("/"), {
    message: "must be an absolute path or a program name looked up on PATH " +
      "(a relative path would be resolved inside the workspace)",
  }),
);

/** A whole number from `min` (to `max`, where given): milliseconds, MiB. */
function wholeNumber(min: number, max?: number) {
  const schema = z.number().check(z.int(), z.gte(min));
  return max === undefined ? schema : schema.check(z.lte(max));
}

/**
 * One entry of `servers`: a new server (`command` and `extensions` or `filenames`), or changes to
 * a shipped adapter, key by key.
 */
export const serverSchema = z.strictObject({
  command: z.optional(z.tuple([program], z.string())),
  extensions: z.optional(
    z.array(
      z.string().check(
        z.regex(/^\.[^/\s]+$/, { message: 'each extension starts with a dot, e.g. ".nix"' }),
      ),
    ).check(z.minLength(1)),
  ),
  filenames: z.optional(
    z.array(
      z.string().check(z.regex(/^[^/\s]+$/, { message: "a file name, without folders" })),
    ).check(z.minLength(1)),
  ),
  languageId: z.optional(z.string().check(z.minLength(1))),
  /** Each extension's language id, where they differ (`.tsx` → `typescriptreact`). */
  extensionToLanguage: z.optional(z.record(z.string(), z.string().check(z.minLength(1)))),
  rootMarkers: z.optional(z.array(z.string().check(z.minLength(1)))),
  initializationOptions: z.optional(z.record(z.string(), z.unknown())),
  settings: z.optional(z.record(z.string(), z.unknown())),
  env: z.optional(z.record(z.string(), z.string())),
  kind: z.optional(z.enum(["language", "linter"])),
  /** Chosen over the other language servers of the same files (e.g. basedpyright over pyright). */
  preferred: z.optional(z.boolean()),
  /**
   * The most private memory each of the server's processes may take (MiB), set as the kernel's
   * data limit (RLIMIT_DATA) before the server runs: one that reaches it fails to allocate and
   * ends, and restarts on the next question.
   */
  memoryCapMiB: z.optional(z.number().check(z.int(), z.gte(64), z.lte(16 * 1024 * 1024))),
  disabled: z.optional(z.boolean()),
});

/** A `servers` entry of the config. */
export type ServerConfig = z.infer<typeof serverSchema>;

/** The config file's shape (JSONC). Every key is optional. */
export const configSchema = z.strictObject({
  role: z.optional(z.enum(["main", "subagent"])),
  allowMutations: z.optional(z.boolean()),
  timeoutMs: z._default(wholeNumber(100, 600_000), 30_000),
  startTimeoutMs: z._default(wholeNumber(100, 600_000), 30_000),
  readyTimeoutMs: z._default(wholeNumber(0, 600_000), 15_000),
  idleShutdownMs: z._default(wholeNumber(0), 0),
  /**
   * The most the language servers' process trees may hold together (MiB); over it, idle servers
   * are stopped, least recently used first. Default: half the machine's memory; 0 = no budget.
   */
  memoryBudgetMiB: z.optional(wholeNumber(0)),
  /**
   * Each server's client in a Worker of its own, allowed to spawn that server's binary and nothing
   * else: defence in depth beside the sandbox, at ~13 MiB and ~0.2 ms a query per server.
   */
  clientWorkers: z._default(z.boolean(), false),
  /** A daemon nobody used for this long stops (ms; 0 = never). */
  daemonIdleMs: z._default(wholeNumber(0), 15 * 60_000),
  /**
   * How long a post-edit hook waits for diagnostics before it gives up quietly (ms). Default:
   * 1,500 on a warm daemon, 50,000 in-process (--no-daemon), where every run starts cold.
   */
  hookDeadlineMs: z.optional(wholeNumber(100, 600_000)),
  // Confined by default: bubblewrap where it can create namespaces, else Landlock, and said
  // plainly where neither works.
  sandbox: z._default(z.enum(["none", "bwrap", "landlock", "auto"]), "auto"),
  readOnlyRoots: z._default(z.array(z.string()), []),
  /**
   * Roots whose own programs (node_modules/.bin, the project's TypeScript, tsconfig plugins, a
   * Python interpreter it names) may run, and then only sandboxed. Only from the user's config.
   */
  trustedRoots: z._default(z.array(z.string()), []),
  servers: z._default(z.record(z.string(), serverSchema), {}),
});

/** lspgate's settings after defaults. */
export type LspGateConfig = z.infer<typeof configSchema>;

/** The defaults, for when no config file is given. */
export function defaultConfig(): LspGateConfig {
  return configSchema.parse({});
}
