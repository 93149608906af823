// The config file's shape: every key lspgate reads, with its defaults and limits.
import { z } from "zod";

const program = z.string().min(1).refine((name) => name.startsWith("/") || !name.includes("/"), {
  message: "must be an absolute path or a program name looked up on PATH " +
    "(a relative path would be resolved inside the workspace)",
});

/**
 * One entry of `servers`: a new server (`command` and `extensions` or `filenames`), or changes to
 * a shipped adapter, key by key.
 */
export const serverSchema = z.strictObject({
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
  /**
   * The most private memory each of the server's processes may take (MiB), set as the kernel's
   * data limit (RLIMIT_DATA) before the server runs: one that reaches it fails to allocate and
   * ends, and restarts on the next question.
   */
  memoryCapMiB: z.number().int().min(64).max(16 * 1024 * 1024).optional(),
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
