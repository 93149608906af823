/// <reference lib="deno.worker" />
// The Worker side of WorkerClient (started through worker_entry.ts): one LspClient per Worker, whose Deno permissions the main
// thread narrowed to what this one server needs (run: its binary; no read, write or net).
import type * as proto from "vscode-languageserver-protocol";
import { toLspGateError } from "../errors.ts";
import { LspClient } from "./client.ts";
import type {
  ClientSnapshot,
  ClientStateChange,
  FromWorker,
  ToWorker,
  WireError,
} from "./worker_protocol.ts";

let client: LspClient | undefined;
const cancels = new Map<number, AbortController>();

/** The state the main thread was last told of, so that only changes are sent. */
const told = {
  capabilities: undefined as unknown,
  encoding: "",
  registeredMethods: "",
  activeProgress: "",
  ready: false,
  info: "",
  /** Per open document: version, hash and language id, as last sent. */
  documents: new Map<string, string>(),
};

function post(message: FromWorker) {
  self.postMessage(message);
}

function wire(error: unknown): WireError {
  const e = toLspGateError(error);
  return { code: e.code, message: e.message, ...(e.data ? { data: e.data } : {}) };
}

function snapshot(c: LspClient): ClientSnapshot {
  const snapshot = {
    capabilities: c.capabilities,
    encoding: c.encoding,
    pid: c.pid,
    startedAt: c.startedAt,
    registeredMethods: c.registeredMethods(),
    activeProgress: c.activeProgress,
    ready: c.ready,
    documents: c.documents.all(),
    info: c.info(),
  };
  changeSince(c);
  return snapshot;
}

/** What changed since the main thread was last told; undefined when nothing did. */
function changeSince(c: LspClient): ClientStateChange | undefined {
  const change: ClientStateChange = {};
  if (c.capabilities !== told.capabilities) {
    told.capabilities = change.capabilities = c.capabilities;
  }
  if (c.encoding !== told.encoding) told.encoding = change.encoding = c.encoding;
  const registered = c.registeredMethods();
  if (registered.join("\n") !== told.registeredMethods) {
    told.registeredMethods = registered.join("\n");
    change.registeredMethods = registered;
  }
  const progress = c.activeProgress;
  if (progress.join("\n") !== told.activeProgress) {
    told.activeProgress = progress.join("\n");
    change.activeProgress = progress;
  }
  if (c.ready !== told.ready) told.ready = change.ready = c.ready;
  const info = c.info();
  const infoKey = JSON.stringify(info);
  if (infoKey !== told.info) {
    told.info = infoKey;
    change.info = info;
  }
  const open = new Set<string>();
  for (const doc of c.documents.all()) {
    open.add(doc.uri);
    const key = `${doc.version}\0${doc.hash}\0${doc.languageId}`;
    if (told.documents.get(doc.uri) === key) continue;
    told.documents.set(doc.uri, key);
    (change.documents ??= []).push(doc);
  }
  for (const uri of told.documents.keys()) {
    if (open.has(uri)) continue;
    told.documents.delete(uri);
    (change.closed ??= []).push(uri);
  }
  return Object.keys(change).length > 0 ? change : undefined;
}

async function call(c: LspClient, message: Extract<ToWorker, { type: "call" }>) {
  const controller = message.cancellable ? new AbortController() : undefined;
  if (controller) cancels.set(message.id, controller);
  const args = message.args;
  const signal = controller?.signal;
  try {
    let value: unknown;
    switch (message.method) {
      case "request": {
        const options = (args[2] ?? {}) as { timeoutMs?: number };
        value = await c.request(args[0] as string, args[1], { ...options, signal });
        break;
      }
      case "notify":
        value = await c.notify(args[0] as string, args[1]);
        break;
      case "syncDocument":
        value = await c.syncDocument(args[0] as string, args[1] as string, args[2] as string);
        break;
      case "closeDocument":
        value = await c.closeDocument(args[0] as string);
        break;
      case "filesChanged":
        value = await c.filesChanged(args[0] as { uri: string; type: 1 | 2 | 3 }[]);
        break;
      case "waitReady":
        value = await c.waitReady(args[0] as number, signal);
        break;
      case "diagnostics":
        value = await c.diagnostics(args[0] as string, args[1] as number, signal);
        break;
      case "published":
        value = await c.published(
          args[0] as string,
          args[1] as proto.Diagnostic[],
          args[2] as number,
          signal,
        );
        break;
      case "shutdown":
        value = await c.shutdown(args[0] as number | undefined);
        break;
    }
    post({ type: "result", id: message.id, value, change: changeSince(c) });
  } catch (error) {
    post({ type: "error", id: message.id, error: wire(error), change: changeSince(c) });
  } finally {
    cancels.delete(message.id);
  }
}

/** Serves one LspClient to the thread that started this Worker (see WorkerClient). */
export function serveClientWorker(): void {
  self.onmessage = async (event: MessageEvent<ToWorker>) => {
    const message = event.data;
    switch (message.type) {
      case "start":
        try {
          client = await LspClient.start(message.options);
          client.onExit((info) => post({ type: "exit", info }));
          post({ type: "started", snapshot: snapshot(client) });
        } catch (error) {
          post({ type: "startFailed", error: wire(error) });
        }
        break;
      case "call":
        if (!client) {
          post({
            type: "error",
            id: message.id,
            error: { code: "INTERNAL", message: "not started" },
          });
        } else {
          call(client, message);
        }
        break;
      case "cancel":
        cancels.get(message.id)?.abort();
        break;
      case "kill":
        client?.kill(message.signal);
        break;
    }
  };
}
