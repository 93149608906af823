// The command line: lspgate's flags, `--help`'s text, and the config they read.
import { dirname } from "../posix_path.ts";
import { fileURLToPath } from "../file_url.ts";
import type { LspGateConfig } from "../config_schema.ts";
import { defaultsWithoutSchema, userConfigToRead } from "../config_source.ts";
import { toLspGateError } from "../errors.ts";
import type { SandboxMode } from "../lsp/sandbox.ts";
import type { Role } from "../permissions/policy.ts";
import { VERSION } from "../version.ts";

/** Command-line flags shared by every front end. */
export interface GlobalFlags {
  root: string;
  role: Role;
  allowMutations: boolean;
  config: LspGateConfig;
  sandbox: SandboxMode;
  /** `--trust`: the root's own programs may run (sandboxed); also `trustedRoots` in the config. */
  trust: boolean;
  /** `--telemetry FILE`: JSON-lines events with timings appended there. */
  telemetry?: string;
  /** `--daemon` (on), `--no-daemon` (off), or the front end's default (auto). */
  daemon?: "auto" | "on" | "off";
  /** `hook --event stop`: the end-of-turn report. */
  event?: string;
  /** `call --json`: print the whole response. */
  json: boolean;
}

/** The text of `lspgate --help`. */
export const USAGE =
  `lspgate — language-server code intelligence for AI agents, as one \`lsp\` tool.

Usage:
  lspgate [flags]                 JSON lines on stdin/stdout (the primary interface)
  lspgate mcp [flags]             an MCP server over stdio with one \`lsp\` tool
  lspgate call ACTION [k=v ...]   one request from the command line, answer as text (--json: whole response)
  lspgate hook [flags] FILE...    diagnostics for edited files (for post-edit hooks; never fails the edit)
  lspgate permissions [flags]     the exact \`deno run\` flags this workspace needs
  lspgate daemon start|stop|status  the workspace's warm daemon
  lspgate doctor [--json]         config files, servers found or missing, sandbox, permissions

Flags:
  --root DIR            workspace root (default: the folder \`deno task\` was run from, else the
                        current folder)
  --role main|subagent  subagent never runs a write action (default: main)
  --allow-mutations     let the main role apply edits (rename/format/code actions with apply)
  --config FILE         JSONC config: timeouts, sandbox, servers, readOnlyRoots
  --sandbox MODE        auto (default) | bwrap | landlock | none: confine language servers with
                        bubblewrap where it can create namespaces, else Landlock
  --trust               the root's own programs (node_modules/.bin, its TypeScript, its Python)
                        may run, sandboxed; never without a sandbox
  --timeout MS          per-request timeout (default 30000)
  --memory-budget MIB   the most the language servers may hold together; over it idle servers
                        stop, least recently used first (default: half the machine's memory;
                        0: no budget)
  --no-servers          run no language server: symbols and diagnostics answer syntax-only
  --telemetry FILE      append JSON-lines events with timings (also LSPGATE_TELEMETRY)
  --daemon              JSON lines and mcp: use the workspace's warm daemon (start it if none)
  --no-daemon           call and hook: no daemon, servers started and stopped in this process
  --event KIND          hook: stop (report every file touched during the agent's turn),
                        session-start (start the workspace's servers), read (open a file read)
  --json                call, doctor: print the whole answer as JSON
  -h, --help            this text
  --version             lspgate's version
`;

/** A bad command line: said as `lspgate: usage: …` and a hint to `--help`, exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** What parseFlags() read from the command line. */
export interface ParsedFlags {
  flags: GlobalFlags;
  /** The positional arguments: the command and its own arguments. */
  rest: string[];
  /**
   * `-h`/`--help` or `--version`: the text to print before exiting 0. Nothing else was read
   * (no config), and `flags` are the defaults.
   */
  print?: string;
}

/** The flags lspgate reads: a string takes a value, a boolean none. */
export const FLAGS = {
  root: { type: "string" },
  role: { type: "string" },
  "allow-mutations": { type: "boolean" },
  config: { type: "string" },
  sandbox: { type: "string" },
  trust: { type: "boolean" },
  timeout: { type: "string" },
  "memory-budget": { type: "string" },
  json: { type: "boolean" },
  "no-servers": { type: "boolean" },
  daemon: { type: "boolean" },
  "no-daemon": { type: "boolean" },
  event: { type: "string" },
  telemetry: { type: "string" },
  help: { type: "boolean" },
  version: { type: "boolean" },
} as const;

/** The one-letter flags: `-h`. */
export const SHORT_FLAGS: Record<string, FlagName> = { h: "help" };

/**
 * Parses the command line. A bad one (an unknown flag, a flag without its value, a bad
 * `--role`, `--sandbox`, `--timeout` or `--root`, a config that cannot be read or is invalid)
 * throws UsageError naming the flag; `-h`, `--help` and `--version` return the text to print.
 */
export async function parseFlags(args: string[]): Promise<ParsedFlags> {
  const { values, positionals } = readArgs(args);
  if (values.help || values.version) {
    return {
      flags: { ...defaultFlags(), config: defaultsWithoutSchema() },
      rest: [],
      print: values.help ? USAGE : `lspgate ${VERSION}`,
    };
  }
  const config = await readConfig(values.config);
  if (values["no-servers"]) {
    const [{ ADAPTERS }, { serversOff }] = await Promise.all([
      import("../../adapters/mod.ts"),
      import("../actions/syntax_only.ts"),
    ]);
    config.servers = serversOff(config.servers, ADAPTERS);
  }
  const role = values.role ?? config.role ?? "main";
  if (role !== "main" && role !== "subagent") {
    throw new UsageError(`--role must be main or subagent, not \`${role}\``);
  }
  const sandbox = values.sandbox ?? config.sandbox;
  if (sandbox !== "none" && sandbox !== "bwrap" && sandbox !== "landlock" && sandbox !== "auto") {
    throw new UsageError(`--sandbox must be auto, bwrap, landlock or none, not \`${sandbox}\``);
  }
  if (values.event !== undefined && !HOOK_EVENTS.includes(values.event)) {
    throw new UsageError(
      `--event must be ${HOOK_EVENTS.join(", ")}, not \`${values.event}\``,
    );
  }
  if (values.timeout !== undefined) {
    const ms = Number(values.timeout);
    if (!/^\d+$/.test(values.timeout) || ms < 100) {
      throw new UsageError(
        `--timeout must be a whole number of milliseconds, at least 100, not \`${values.timeout}\``,
      );
    }
    config.timeoutMs = ms;
  }
  const budget = values["memory-budget"];
  if (budget !== undefined) {
    if (!/^\d+$/.test(budget)) {
      throw new UsageError(
        `--memory-budget must be a whole number of MiB (0: no budget), not \`${budget}\``,
      );
    }
    config.memoryBudgetMiB = Number(budget);
  }
  if (values.root !== undefined) checkRoot(values.root);
  return {
    flags: {
      root: values.root ?? defaultRoot(),
      role,
      // A sub-agent never mutates, whatever flag or config says; policy enforces it again.
      allowMutations: role === "main" &&
        (values["allow-mutations"] ?? config.allowMutations ?? false),
      config,
      sandbox,
      trust: values.trust ?? false,
      json: values.json ?? false,
      telemetry: values.telemetry,
      daemon: values["no-daemon"] ? "off" : values.daemon ? "on" : "auto",
      event: values.event,
    },
    rest: positionals,
  };
}

/** The hook's `--event` kinds (a typo is said, not taken for a check of nothing). */
const HOOK_EVENTS = ["stop", "session-start", "read"];

type FlagName = keyof typeof FLAGS;
/** What each flag was given: a string flag's value, true for a boolean one. */
type FlagValues = {
  [K in FlagName]?: (typeof FLAGS)[K]["type"] extends "string" ? string : boolean;
};

/**
 * The flags and positional arguments, read strictly as node:util's parseArgs reads them (not
 * node:util itself: see posix_path.ts): `--flag`, `--flag=VALUE`, `--flag VALUE` (a VALUE
 * starting with `-` only after `=`), `-h`, and `--` before arguments that are all positional. A
 * flag given twice keeps its last value. A bad one throws UsageError naming it.
 */
export function readArgs(args: string[]): { values: FlagValues; positionals: string[] } {
  const values: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
    } else if (!arg.startsWith("--")) {
      // A group of short flags (`-h`, or `-hx`): each letter one flag, none of them with a value.
      for (const letter of arg.slice(1)) {
        const name = SHORT_FLAGS[letter];
        if (name === undefined) throw new UsageError(`unknown flag -${letter}`);
        values[name] = true;
      }
    } else {
      const equals = arg.indexOf("=");
      const name = arg.slice(2, equals === -1 ? undefined : equals);
      const flag = `--${name}`;
      if (!Object.hasOwn(FLAGS, name)) {
        throw new UsageError(`unknown flag ${name === "" ? arg : flag}`);
      }
      if (FLAGS[name as FlagName].type === "boolean") {
        if (equals !== -1) throw new UsageError(`${flag} takes no value`);
        values[name] = true;
      } else if (equals !== -1) {
        values[name] = arg.slice(equals + 1);
      } else {
        const value = args[i + 1];
        if (value === undefined || (value.length > 1 && value.startsWith("-"))) {
          const shape = FLAG_VALUES[name] ?? "VALUE";
          throw new UsageError(
            `${flag} needs a value (${flag} ${shape}; ${flag}=${shape} when it starts with -)`,
          );
        }
        values[name] = value;
        i++;
      }
    }
  }
  return { values: values as FlagValues, positionals };
}

/** The value each string flag takes, as its usage errors show it. */
export const FLAG_VALUES: Record<string, string> = {
  root: "DIR",
  role: "main|subagent",
  config: "FILE",
  sandbox: "auto|bwrap|landlock|none",
  timeout: "MS",
  "memory-budget": "MIB",
  telemetry: "FILE",
};

/**
 * The user's config (`--config FILE`, else the user-level one); its problems as a usage error.
 * Its parser and the adapters' ids load only when there is a file to read: a client of the warm
 * daemon then starts at a fraction of lspgate's size.
 */
async function readConfig(path: string | undefined): Promise<LspGateConfig> {
  if (!userConfigToRead(path)) return defaultsWithoutSchema();
  const [{ ADAPTERS }, { loadUserConfig }] = await Promise.all([
    import("../../adapters/mod.ts"),
    import("../config.ts"),
  ]);
  try {
    // --config, else ~/.config/lspgate/config.jsonc when present; server ids are checked.
    return await loadUserConfig(path, { knownServers: ADAPTERS.map((a) => a.id) });
  } catch (error) {
    const message = toLspGateError(error).message.replace(/\s*\n\s*/g, "; ");
    throw new UsageError(path === undefined ? message : `--config: ${message}`);
  }
}

/** A `--root` that names no folder is a usage error; one lspgate may not read is left to fail later. */
function checkRoot(root: string): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(root || ".");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`--root ${root}: no such folder`);
    }
    return;
  }
  if (!root) throw new UsageError("--root needs a folder, not an empty string");
  if (!info.isDirectory) throw new UsageError(`--root ${root} is not a folder`);
}

/**
 * The root when `--root` is not given: the folder the user ran \`deno task start\` from, else the
 * current folder. Deno runs a task in the folder of its deno.json — lspgate's own checkout — and
 * sets INIT_CWD to where the user was. INIT_CWD counts only while the current folder is the one
 * of lspgate's entry module: `deno task --cwd DIR` runs in DIR and means DIR, and an INIT_CWD a
 * parent process left behind (npm sets it too) must not widen the root of a program run elsewhere.
 */
export function defaultRoot(): string {
  const cwd = Deno.cwd();
  const initCwd = envIfGranted("INIT_CWD");
  if (!initCwd) return cwd;
  try {
    const entry = Deno.mainModule.startsWith("file:")
      ? dirname(fileURLToPath(Deno.mainModule))
      : undefined;
    return entry !== undefined && sameFolder(entry, cwd) ? initCwd : cwd;
  } catch {
    return cwd;
  }
}

function sameFolder(a: string, b: string): boolean {
  try {
    return Deno.realPathSync(a) === Deno.realPathSync(b);
  } catch {
    return a === b;
  }
}

/** An environment variable, or undefined where reading it is not granted (never a prompt). */
export function envIfGranted(name: string): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
      return undefined;
    }
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

function defaultFlags(): Omit<GlobalFlags, "config"> {
  return {
    root: defaultRoot(),
    role: "main",
    allowMutations: false,
    sandbox: "auto",
    trust: false,
    json: false,
  };
}

/**
 * The command a command line names (its first positional argument), found without judging its
 * flags: `hook` must know it is the hook even when its flags are bad.
 */
export function commandOf(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") return args[i + 1];
    if (!arg.startsWith("-") || arg === "-") return arg;
    const name = arg.replace(/^--?/, "");
    const spec = FLAGS[name as keyof typeof FLAGS];
    if (spec?.type === "string") i++;
  }
  return undefined;
}
