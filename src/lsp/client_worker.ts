/// <reference lib="deno.worker" />
// The Worker side of WorkerClient (started through worker_entry.ts): one LspClient per Worker, whose Deno permissions the main
// thread narrowed to what this one server needs (run: its binary; no read, write or net).
import { toLspGateError } from "../errors.ts";
import { LspClient } from "./client.ts";
import type { ClientSnapshot, FromWorker, ToWorker, WireError } from "./worker_protocol.ts";

let client: LspClient | undefined;
const cancels = new Map<number, AbortController>();

function post(message: FromWorker) {
  self.postMessage(message);
}

function wire(error: unknown): WireError {
  const e = toLspGateError(error);
  return { code: e.code, message: e.message, ...(e.data ? { data: e.data } : {}) };
}

function snapshot(c: LspClient): ClientSnapshot {
  return {
    capabilities: c.capabilities,
    encoding: c.encoding,
    pid: c.pid,
    startedAt: c.startedAt,
    registeredMethods: c.registeredMethods(),
    activeProgress: c.activeProgress,
    documents: c.documents.all(),
    info: c.info(),
  };
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
      case "shutdown":
        value = await c.shutdown(args[0] as number | undefined);
        break;
    }
    post({ type: "result", id: message.id, value, snapshot: snapshot(c) });
  } catch (error) {
    post({ type: "error", id: message.id, error: wire(error), snapshot: snapshot(c) });
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
