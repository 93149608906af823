import { LspGateError } from "../errors.ts";
import type { ServerClient } from "../lsp/server_client.ts";
import type { PositionEncoding } from "../lsp/positions.ts";
import { linesOf, type TextLines } from "../lsp/text_lines.ts";
import type { WorkspacePath } from "../permissions/workspace.ts";
import type { Lease } from "../servers/manager.ts";
import type { ActionContext } from "./types.ts";
import { isMethodNotFound, noteRefusal } from "./refused_methods.ts";

/** A file open in its server, ready for a query. */
export interface QueryDocument {
  path: WorkspacePath;
  /** Workspace-relative path, for messages. */
  rel: string;
  uri: string;
  lines: TextLines;
  client: ServerClient;
  encoding: PositionEncoding;
  lease: Lease;
  /** The adapter id of the server answering. */
  server: string;
}

/** Resolves `file` inside the workspace, refusing folders. */
export async function resolveFile(context: ActionContext, file: string): Promise<WorkspacePath> {
  const path = await context.workspace.resolve(file);
  // In the thread (a stat opens nothing): every request that names a file asks this.
  const info = Deno.statSync(path);
  if (info.isDirectory) {
    throw new LspGateError(
      "INVALID_INPUT",
      `${context.workspace.relative(path)} is a folder; give a file.`,
      { file },
    );
  }
  return path;
}

/** Opens `file` in its server (synced with the disk), runs `fn`, and releases the server. */
export async function withDocument<T>(
  context: ActionContext,
  file: string,
  fn: (doc: QueryDocument) => Promise<T>,
): Promise<T> {
  const path = await resolveFile(context, file);
  try {
    return await onLease(context, path, fn);
  } catch (error) {
    // A server that died before this request reached it (killed between two queries, noticed a
    // few ms late) is restarted and asked once more; one that died while answering is not. Nor is
    // one lspgate stopped for a fault that broke it (pyright's "_token.cancel is not a function"):
    // it wrote nothing, and a new server answers (CI saw the fault fail a references question).
    const deadOnArrival = error instanceof LspGateError && error.code === "SERVER_EXITED" &&
      (error.data?.diedBeforeLease === true || error.data?.notSent === true);
    const restarted = error instanceof LspGateError && error.data?.restarted === true;
    if (!deadOnArrival && !restarted) throw error;
    return await onLease(context, path, fn);
  }
}

async function onLease<T>(
  context: ActionContext,
  path: WorkspacePath,
  fn: (doc: QueryDocument) => Promise<T>,
): Promise<T> {
  const lease = await context.manager.acquire(path, context.signal);
  try {
    return await fn(queryDocument(context, path, lease));
  } finally {
    lease.release();
  }
}

/** The document a lease on `path` gives a query. */
export function queryDocument(
  context: ActionContext,
  path: WorkspacePath,
  lease: Lease,
): QueryDocument {
  return {
    path,
    rel: context.workspace.relative(path),
    uri: lease.uri,
    lines: linesOf(lease.text),
    client: lease.client,
    encoding: lease.client.encoding,
    lease,
    server: lease.pick.adapter.id,
  };
}

/** Sends a request on behalf of the caller: its timeout and its cancel signal. */
export function ask<R>(
  context: ActionContext,
  client: ServerClient,
  method: string,
  params: unknown,
): Promise<R> {
  return client.request<R>(method, params, {
    timeoutMs: context.timeoutMs,
    signal: context.signal,
  }).catch((error) => {
    // A method the server advertised and refused: remembered, and the error names the method.
    if (!isMethodNotFound(error)) throw error;
    noteRefusal(client, method, error);
    throw new LspGateError(error.code, error.message, { ...error.data, method });
  });
}

/** The success answer for a server that lacks a capability: not an error, a plain sentence. */
export function notSupported(action: string, server: string, method: string) {
  return {
    text: `${action} is not supported by ${server} (it does not offer ${method}).`,
    details: { supported: false, server, method },
  };
}
