import type * as proto from "vscode-languageserver-protocol";
import type { ClientInfo, ClientOptions, RawDiagnostics } from "./client.ts";
import type { OpenDocument } from "./documents.ts";
import type { PositionEncoding } from "./positions.ts";

/** How a server process ended. */
export interface ExitInfo {
  code: number;
  signal: string | null;
  /** Date.now() when the process was seen gone. */
  diedAt?: number;
  stderr: string[];
  /** Set when lspgate killed the server for misbehaving (e.g. it stopped answering). */
  reason?: string;
  /** The data limit it ran under (servers.<id>.memoryCapMiB). */
  memoryCapMiB?: number;
}

/**
 * One language server as the layers above see it: asynchronous and message-shaped, so the same
 * interface is served in-process (LspClient) or from a Worker with narrowed permissions
 * (WorkerClient). Synchronous members read a snapshot the client keeps.
 */
export interface ServerClient {
  readonly options: ClientOptions;
  readonly capabilities: proto.ServerCapabilities;
  readonly encoding: PositionEncoding;
  readonly pid: number;
  readonly exited: boolean;
  readonly exitInfo?: ExitInfo;
  readonly uptimeMs: number;
  readonly pullsDiagnostics: boolean;
  readonly activeProgress: string[];
  readonly documents: { get(uri: string): OpenDocument | undefined; readonly size: number };
  supports(method: string): boolean;
  request<R = unknown>(
    method: string,
    params: unknown,
    options?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<R>;
  notify(method: string, params: unknown): Promise<void>;
  syncDocument(uri: string, languageId: string, text: string): Promise<OpenDocument>;
  closeDocument(uri: string): Promise<void>;
  filesChanged(changes: { uri: string; type: 1 | 2 | 3 }[]): Promise<void>;
  waitReady(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  diagnostics(uri: string, timeoutMs: number, signal?: AbortSignal): Promise<RawDiagnostics>;
  published(
    uri: string,
    items: proto.Diagnostic[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<boolean>;
  info(): ClientInfo;
  onExit(handler: (info: ExitInfo) => void): void;
  shutdown(graceMs?: number): Promise<void>;
  kill(signal?: Deno.Signal): void;
}
