// Methods a server advertises but answers MethodNotFound (-32601). clangd 14 advertises call and
// type hierarchy (callHierarchyProvider, typeHierarchyProvider) and answers neither (issue 17):
// such a method is then "not supported by clangd 14.0.6", as an answer, and `capabilities` says so
// for the rest of that server's life (a restarted server is asked again).
import { LspGateError } from "../errors.ts";
import type { ServerClient } from "../lsp/server_client.ts";

const METHOD_NOT_FOUND = -32601;

const refused = new WeakMap<ServerClient, Set<string>>();

/** True when `error` is the server's MethodNotFound. */
export function isMethodNotFound(error: unknown): boolean {
  return error instanceof LspGateError && error.code === "LSP_ERROR" &&
    (error.data as { code?: unknown } | undefined)?.code === METHOD_NOT_FOUND;
}

/** Remembers a method `client` answered MethodNotFound; other errors are left alone. */
export function noteRefusal(client: ServerClient, method: string, error: unknown): void {
  if (!isMethodNotFound(error)) return;
  let methods = refused.get(client);
  if (!methods) refused.set(client, methods = new Set());
  methods.add(method);
}

/** True when the server answered `method` with MethodNotFound although it advertises it. */
export function refusedBy(client: ServerClient, method: string): boolean {
  return refused.get(client)?.has(method) ?? false;
}

/** The server offers `method` and has not refused it: what an action may ask. */
export function offers(client: ServerClient, method: string): boolean {
  return client.supports(method) && !refusedBy(client, method);
}

/** "clangd 14.0.6", or the id alone when the server gave no version. */
export function serverLabel(client: ServerClient, server: string): string {
  const version = client.info().serverVersion;
  if (!version) return server;
  // clangd's version reads "Debian clangd version 14.0.6 (…)": the number is what tells.
  const number = version.match(/\d+\.\d+(?:\.\d+)?/)?.[0];
  return `${server} ${number ?? version}`;
}

/** The answer for a method the server advertised and then refused: a sentence, not an error. */
export function refusedAnswer(
  action: string,
  client: ServerClient,
  server: string,
  method: string,
) {
  const label = serverLabel(client, server);
  return {
    text: `${action} is not supported by ${label} (it advertises ${method} but answers ` +
      "MethodNotFound).",
    details: { supported: false, server, version: client.info().serverVersion ?? null, method },
  };
}

/**
 * Runs `fn`; a MethodNotFound from the server for what it advertised becomes refusedAnswer() for
 * the method it refused.
 */
export async function orRefused<T extends { text: string; details: Record<string, unknown> }>(
  action: string,
  doc: { client: ServerClient; server: string },
  fn: () => Promise<T>,
): Promise<T | ReturnType<typeof refusedAnswer>> {
  try {
    return await fn();
  } catch (error) {
    if (!isMethodNotFound(error)) throw error;
    const method = (error as LspGateError).data?.method;
    return refusedAnswer(action, doc.client, doc.server, typeof method === "string" ? method : "");
  }
}

/**
 * The answer for a method the server does not offer: refusedAnswer() when it advertised it and
 * answered MethodNotFound, else document.ts's notSupported() sentence.
 */
export function lacking(
  action: string,
  doc: { client: ServerClient; server: string },
  method: string,
) {
  if (refusedBy(doc.client, method)) return refusedAnswer(action, doc.client, doc.server, method);
  return {
    text: `${action} is not supported by ${doc.server} (it does not offer ${method}).`,
    details: { supported: false, server: doc.server, method },
  };
}
