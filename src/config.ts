import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { z } from "zod";
import { LspGateError } from "./errors.ts";

const serverSchema = z.strictObject({
  command: z.array(z.string().min(1)).min(1).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  disabled: z.boolean().optional(),
});

/** The config file's shape (JSONC). Every key is optional. */
export const configSchema = z.strictObject({
  role: z.enum(["main", "subagent"]).optional(),
  allowMutations: z.boolean().optional(),
  timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  startTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  readyTimeoutMs: z.number().int().min(0).max(600_000).default(15_000),
  idleShutdownMs: z.number().int().min(0).default(0),
  // Confined by default: bubblewrap where it works, and said plainly where it does not.
  sandbox: z.enum(["none", "bwrap", "auto"]).default("auto"),
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

/** Reads and validates a JSONC config file; every problem is INVALID_INPUT naming the file. */
export async function loadConfig(path: string): Promise<LspGateConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new LspGateError(
      "FILE_NOT_FOUND",
      `cannot read config ${path}: ${error instanceof Error ? error.message : error}`,
    );
  }
  const errors: ParseError[] = [];
  const json = parse(text, errors, { allowTrailingComma: true });
  if (errors.length) {
    const first = errors[0];
    throw new LspGateError(
      "INVALID_INPUT",
      `config ${path}: ${printParseErrorCode(first.error)} at offset ${first.offset}`,
    );
  }
  const parsed = configSchema.safeParse(json ?? {});
  if (!parsed.success) {
    throw new LspGateError(
      "INVALID_INPUT",
      `config ${path}: ${
        parsed.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")
      }`,
    );
  }
  return parsed.data;
}
