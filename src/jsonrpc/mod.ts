/**
 * JSON-RPC 2.0 over Content-Length framing, knowing nothing of LSP.
 *
 * @module
 */
export {
  type ConnectionOptions,
  JsonRpcConnection,
  type NotificationHandler,
  type RequestOptions,
} from "./connection.ts";
export { ErrorCodes, type RequestHandler, ResponseError } from "./messages.ts";
export { createMemoryPair } from "./memory.ts";
// For fake servers that write frames by hand (garbage, huge or split output).
export { encodeMessage } from "./framing.ts";
export type { Transport } from "./transport.ts";
