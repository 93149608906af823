import type * as proto from "vscode-languageserver-protocol";
import type { ClientInfo, ClientOptions } from "./client.ts";
import type { OpenDocument } from "./documents.ts";
import type { PositionEncoding } from "./positions.ts";
import type { ExitInfo } from "./server_client.ts";

/** The client state mirrored to the main thread after every call and event. */
export interface ClientSnapshot {
  capabilities: proto.ServerCapabilities;
  encoding: PositionEncoding;
  pid: number;
  startedAt: number;
  registeredMethods: string[];
  activeProgress: string[];
  documents: OpenDocument[];
  info: ClientInfo;
}

/** Methods of the client callable across the Worker boundary. */
export type CallableMethod =
  | "request"
  | "notify"
  | "syncDocument"
  | "closeDocument"
  | "filesChanged"
  | "waitReady"
  | "diagnostics"
  | "shutdown";

/** Main thread → Worker. */
export type ToWorker =
  | { type: "start"; options: ClientOptions }
  | { type: "call"; id: number; method: CallableMethod; args: unknown[]; cancellable: boolean }
  | { type: "cancel"; id: number }
  | { type: "kill"; signal: Deno.Signal };

/** An error as it crosses the boundary. */
export interface WireError {
  code: string;
  message: string;
  data?: Record<string, unknown>;
}

/** Worker → main thread. */
export type FromWorker =
  | { type: "started"; snapshot: ClientSnapshot }
  | { type: "startFailed"; error: WireError }
  | { type: "result"; id: number; value: unknown; snapshot: ClientSnapshot }
  | { type: "error"; id: number; error: WireError; snapshot?: ClientSnapshot }
  | { type: "exit"; info: ExitInfo };
