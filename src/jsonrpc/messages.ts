/** The JSON-RPC error codes this layer sends itself. */
export const ErrorCodes = {
  MethodNotFound: -32601,
  InternalError: -32603,
} as const;

/** An error a request handler throws to answer with this JSON-RPC error. */
export class ResponseError extends Error {
  /** Creates the error response `{ code, message, data }`. */
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
    this.name = "ResponseError";
  }
}

/** Answers a request from the peer; throw a ResponseError to answer with an error. */
export type RequestHandler = (
  method: string,
  params: unknown,
) => unknown | Promise<unknown>;

/** The `result` or `error` member answering a peer's request; never throws. */
export async function replyTo(
  handler: RequestHandler | undefined,
  method: string,
  params: unknown,
): Promise<{ result: unknown } | { error: unknown }> {
  if (!handler) {
    const message = `Unhandled method ${method}`;
    return { error: { code: ErrorCodes.MethodNotFound, message } };
  }
  try {
    // JSON-RPC needs a `result` member: a handler returning nothing answers null.
    return { result: (await handler(method, params)) ?? null };
  } catch (error) {
    if (error instanceof ResponseError) {
      const { code, message, data } = error;
      return { error: { code, message, data } };
    }
    const message = errorMessage(error);
    return { error: { code: ErrorCodes.InternalError, message } };
  }
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An incoming message, told apart leniently by which fields it has. */
export type IncomingMessage =
  | { kind: "request"; id: number | string; method: string; params: unknown }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "response"; id: number | string; result?: unknown; error?: unknown }
  | { kind: "junk" };

/** Classifies a parsed message: `method`+`id` request, `method` notification, `id`+result/error response. */
export function classify(message: unknown): IncomingMessage {
  if (typeof message !== "object" || message === null) return { kind: "junk" };
  const fields = message as Record<string, unknown>;
  const id = isId(fields.id) ? fields.id : undefined;
  if (typeof fields.method === "string") {
    return id === undefined
      ? { kind: "notification", method: fields.method, params: fields.params }
      : { kind: "request", id, method: fields.method, params: fields.params };
  }
  if (id !== undefined && ("result" in fields || "error" in fields)) {
    return { kind: "response", id, result: fields.result, error: fields.error };
  }
  return { kind: "junk" };
}

/** The `{ code, message, data }` of a wire error, read leniently. */
export function readWireError(
  error: unknown,
): { code: number; message: string; data?: unknown } {
  const fields = typeof error === "object" && error !== null
    ? error as Record<string, unknown>
    : {};
  return {
    code: typeof fields.code === "number" ? fields.code : ErrorCodes.InternalError,
    message: typeof fields.message === "string"
      ? fields.message
      : JSON.stringify(error) ?? "unknown error",
    data: fields.data,
  };
}

function isId(value: unknown): value is number | string {
  return typeof value === "number" || typeof value === "string";
}
