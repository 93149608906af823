import type * as proto from "vscode-languageserver-protocol";
import type { ClientInfo, ClientOptions } from "./client.ts";
import type { OpenDocument } from "./documents.ts";
import type { PositionEncoding } from "./positions.ts";
import type { ExitInfo } from "./server_client.ts";

/** The client state mirrored to the main thread: whole when the Worker starts. */
export interface ClientSnapshot {
  capabilities: proto.ServerCapabilities;
  encoding: PositionEncoding;
  pid: number;
  startedAt: number;
  registeredMethods: string[];
  activeProgress: string[];
  /** See LspClient.ready. */
  ready: boolean;
  documents: OpenDocument[];
  info: ClientInfo;
}

/**
 * What changed in the client state since the Worker's previous message, sent with every answer:
 * only the fields that changed, and of the documents only those opened, changed or closed.
 * Rationale: a whole snapshot per answer (capabilities, every open document) costs a structured
 * clone on both threads that grows with the documents open, for state that rarely changes.
 */
export interface ClientStateChange {
  capabilities?: proto.ServerCapabilities;
  encoding?: PositionEncoding;
  registeredMethods?: string[];
  activeProgress?: string[];
  ready?: boolean;
  info?: ClientInfo;
  /** Documents opened or given a new version (a document's `usedAt` is as of that change). */
  documents?: OpenDocument[];
  /** URIs of documents closed. */
  closed?: string[];
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
  | "published"
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
  | { type: "result"; id: number; value: unknown; change?: ClientStateChange }
  | { type: "error"; id: number; error: WireError; change?: ClientStateChange }
  | { type: "exit"; info: ExitInfo };
