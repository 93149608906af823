/** The closed set of error codes of DESIGN.md. */
export const ERROR_CODES = [
  "INVALID_JSON",
  "INVALID_INPUT",
  "UNKNOWN_ACTION",
  "FILE_NOT_FOUND",
  "OUTSIDE_WORKSPACE",
  "ACTION_NOT_ALLOWED",
  "PERMISSION_DENIED",
  "NO_SERVER",
  "SERVER_NOT_INSTALLED",
  "SERVER_START_FAILED",
  "SERVER_EXITED",
  "LSP_ERROR",
  "TIMEOUT",
  "CANCELLED",
  "SYMBOL_NOT_FOUND",
  "AMBIGUOUS_SYMBOL",
  "EDIT_CONFLICT",
  "EDIT_FAILED",
  "INTERNAL",
] as const;

/** One of the error codes an agent can receive. */
export type ErrorCode = typeof ERROR_CODES[number];

/** The one error class of lspgate: a stable code, a message that says what to do, and data. */
export class LspGateError extends Error {
  /** Creates an error with a code from the closed set. */
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "LspGateError";
  }
}

/** Turns anything thrown into an LspGateError; Deno permission errors become PERMISSION_DENIED. */
export function toLspGateError(error: unknown): LspGateError {
  if (error instanceof LspGateError) return error;
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return new LspGateError("PERMISSION_DENIED", permissionMessage(error.message));
  }
  if (error instanceof Deno.errors.NotFound) {
    return new LspGateError("FILE_NOT_FOUND", error.message);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LspGateError("INTERNAL", message);
}

function permissionMessage(raw: string): string {
  // Deno says e.g. `Requires read access to "/x", run again with the --allow-read flag`.
  const flag = raw.match(/--allow-[a-z-]+/)?.[0];
  return flag
    ? `Deno permission missing: ${raw.replace(/\s+/g, " ")} (grant it with ${flag})`
    : `Deno permission missing: ${raw}`;
}
