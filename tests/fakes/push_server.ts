/**
 * A scripted server that pushes diagnostics the way typescript-language-server does, for tests of
 * how LspClient waits for them (never a stand-in for a real server's answers).
 *
 * Run as `deno run -A tests/fakes/push_server.ts [--mute]`. Every open document "imports" the
 * file `dep` in the root, read from disk when checked: while `dep` holds the word `bad`, each
 * document has one error on its first line. After a didOpen or didChange it checks every open
 * document 50 ms later and publishes, without a version, for each one except a document that was
 * clean and stays clean (FileDiagnostics.update). A didChangeWatchedFiles is acted on only 3 s
 * later (tsserver's delayEnsureProjectForOpenFiles). `--mute` never publishes anything.
 * `--encode-uris` publishes each URI with the characters vscode-uri escapes in a path (`@`, `+`,
 * parentheses, …) percent-encoded, as servers built on it do (typescript-language-server).
 * `--tsserver-request=fail|hang` offers typescript-language-server's `typescript.tsserverRequest`
 * command and answers it with an error, or never (for the client's diagnostics hook).
 *
 * @module
 */

import { JsonRpcConnection } from "../../src/jsonrpc/mod.ts";

/** How long the fake waits after a didChangeWatchedFiles before it checks again: far longer than a re-sent document takes, so a test tells the two apart on any machine. */
export const WATCHED_CHANGE_DELAY_MS = 20_000;

/** How the fake answers `typescript.tsserverRequest`: with an error, or never. */
export type TsserverRequestMode = "fail" | "hang";

/** The command that runs this fake. */
export function pushServerCommand(
  options: { mute?: boolean; tsserverRequest?: TsserverRequestMode; encodeUris?: boolean } = {},
): string[] {
  const script = new URL(import.meta.url).pathname;
  return [
    Deno.execPath(),
    "run",
    "-A",
    "--no-config",
    script,
    ...(options.mute ? ["--mute"] : []),
    ...(options.encodeUris ? ["--encode-uris"] : []),
    ...(options.tsserverRequest ? [`--tsserver-request=${options.tsserverRequest}`] : []),
  ];
}

function main(mute: boolean, tsserverRequest?: string, encodeUris = false) {
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => {
      let done = 0;
      while (done < chunk.length) done += Deno.stdout.writeSync(chunk.subarray(done));
    },
  });
  const connection = new JsonRpcConnection({ readable: Deno.stdin.readable, writable });
  let root = "";
  const open = new Set<string>();
  const published = new Map<string, number>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  const check = () => {
    let dep = "";
    try {
      dep = Deno.readTextFileSync(`${root}/dep`);
    } catch {
      // no dep: clean
    }
    const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
    const diagnostics = dep.includes("bad")
      ? [{ range, severity: 1, message: "dep is bad", source: "push-fake" }]
      : [];
    for (const uri of open) {
      if (published.get(uri) === 0 && diagnostics.length === 0) continue;
      published.set(uri, diagnostics.length);
      connection.sendNotification("textDocument/publishDiagnostics", {
        uri: encodeUris
          ? uri.replace(/[@+()!$&',;=]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)
          : uri,
        diagnostics,
      });
    }
  };
  const schedule = (ms: number) => {
    if (mute) return;
    clearTimeout(timer);
    timer = setTimeout(check, ms);
  };

  connection.onRequest((method, params) => {
    if (method === "initialize") {
      root = decodeURIComponent(new URL((params as { rootUri: string }).rootUri).pathname);
      const commands = tsserverRequest ? { commands: ["typescript.tsserverRequest"] } : undefined;
      return { capabilities: { textDocumentSync: 1, executeCommandProvider: commands } };
    }
    if (method === "shutdown") return null;
    if (method === "workspace/executeCommand" && tsserverRequest === "hang") {
      return new Promise(() => {});
    }
    if (method === "workspace/executeCommand" && tsserverRequest === "fail") {
      throw new Error("TypeScript Server Error: No Project.");
    }
    throw new Error(`push fake does not handle ${method}`);
  });
  connection.onNotification((method, params) => {
    const uri = (params as { textDocument?: { uri?: string } })?.textDocument?.uri;
    if (method === "textDocument/didOpen" && uri) open.add(uri);
    if (method === "textDocument/didClose" && uri) open.delete(uri);
    if (method === "textDocument/didOpen" || method === "textDocument/didChange") schedule(50);
    if (method === "workspace/didChangeWatchedFiles") schedule(WATCHED_CHANGE_DELAY_MS);
    if (method === "exit") Deno.exit(0);
  });
  connection.listen();
}

if (import.meta.main) {
  const tsserverRequest = Deno.args.find((a) => a.startsWith("--tsserver-request="))?.split("=")[1];
  main(Deno.args.includes("--mute"), tsserverRequest, Deno.args.includes("--encode-uris"));
}
