/**
 * A scripted server that loads its project after the first open, the way clangd's background
 * index and rust-analyzer's workspace loading do, for tests of how LspClient waits for readiness
 * (never a stand-in for a real server's answers).
 *
 * Run as `deno run -A tests/fakes/loading_server.ts --style index|phases|never`. On the first
 * didOpen it publishes empty diagnostics at once, then:
 * - `index`: after 300 ms begins work-done progress `backgroundIndexProgress`, ending it 300 ms
 *   later (clangd: the index starts once the compilation database is loaded);
 * - `phases`: runs three progress phases of 200 ms with 100 ms gaps between, then sends
 *   `experimental/serverStatus` with `quiescent: true` (rust-analyzer);
 * - `never`: loads nothing.
 * `workspace/symbol` answers `[{name: "loaded"}]` once loading is done, `[]` before.
 *
 * @module
 */

import { JsonRpcConnection } from "../../src/jsonrpc/mod.ts";

/** How the fake loads. */
export type LoadingStyle = "index" | "phases" | "never";

/** The command that runs this fake. */
export function loadingServerCommand(style: LoadingStyle): string[] {
  const script = new URL(import.meta.url).pathname;
  return [Deno.execPath(), "run", "-A", "--no-config", script, "--style", style];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function main(style: LoadingStyle) {
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => {
      let done = 0;
      while (done < chunk.length) done += Deno.stdout.writeSync(chunk.subarray(done));
    },
  });
  const connection = new JsonRpcConnection({ readable: Deno.stdin.readable, writable });
  let loaded = false;
  let opened = false;

  const phase = async (token: string, ms: number) => {
    await connection.sendNotification("$/progress", {
      token,
      value: { kind: "begin", title: token },
    });
    await sleep(ms);
    await connection.sendNotification("$/progress", { token, value: { kind: "end" } });
  };
  const load = async () => {
    if (style === "index") {
      await sleep(300);
      await phase("backgroundIndexProgress", 300);
      loaded = true;
    } else if (style === "phases") {
      await connection.sendNotification("experimental/serverStatus", { quiescent: false });
      for (const token of ["Fetching", "Building CrateGraph", "Indexing"]) {
        await phase(token, 200);
        await sleep(100);
      }
      loaded = true;
      await connection.sendNotification("experimental/serverStatus", { quiescent: true });
    }
  };

  connection.onRequest((method) => {
    if (method === "initialize") return { capabilities: { workspaceSymbolProvider: true } };
    if (method === "workspace/symbol") return loaded ? [{ name: "loaded" }] : [];
    if (method === "shutdown") return null;
    throw new Error(`loading fake does not handle ${method}`);
  });
  connection.onNotification((method, params) => {
    if (method === "textDocument/didOpen" && !opened) {
      opened = true;
      const uri = (params as { textDocument: { uri: string } }).textDocument.uri;
      connection.sendNotification("textDocument/publishDiagnostics", { uri, diagnostics: [] });
      load();
    }
    if (method === "exit") Deno.exit(0);
  });
  connection.listen();
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--style");
  main((at === -1 ? "index" : Deno.args[at + 1]) as LoadingStyle);
}
