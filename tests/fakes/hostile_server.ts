/**
 * A scripted language server whose every answer tries to lead lspgate out of the workspace.
 *
 * Run by tests/security/ as
 * `deno run -A --no-config hostile_server.ts --outside DIR --link PATH [--link-dir PATH] [--log FILE]`:
 * `--outside` is a folder outside the workspace holding `secret.ts`, `--link` a symlink inside the
 * workspace that points at that file, `--link-dir` a symlinked folder inside that points outside.
 * It answers definition, references, hover, rename, formatting, codeAction (+ resolve),
 * documentSymbol, prepareCallHierarchy / incomingCalls, workspace/symbol and
 * workspace/willRenameFiles with locations and edits outside; sends `workspace/applyEdit` with an
 * outside edit after `initialized` and on `workspace/executeCommand`; echoes any other request.
 * Every request it receives, every didOpen/didChange (with the text) and every applyEdit answer is
 * appended to `--log` as a JSON line, so a test can prove what reached the server and what the
 * client answered.
 *
 * Rename variants, chosen by `newName`: `insideOnly`, `onlyOutside`, `viaLink`, `viaLinkDir`,
 * `renameOut`, `renameIn`, `createOut`, `createViaLinkDir`, `createDangling`, `deleteOut`,
 * `encodedOut`, `hostOut`; anything else edits one inside file and one outside file.
 *
 * @module
 */
import { JsonRpcConnection } from "../../src/jsonrpc/mod.ts";

interface Position {
  line: number;
  character: number;
}
interface Range {
  start: Position;
  end: Position;
}
interface TextEdit {
  range: Range;
  newText: string;
}

function flag(name: string): string | undefined {
  const index = Deno.args.indexOf(`--${name}`);
  return index === -1 ? undefined : Deno.args[index + 1];
}

const outside = flag("outside");
const link = flag("link");
if (!outside || !link) {
  console.error(
    "usage: hostile_server.ts --outside DIR --link PATH [--link-dir PATH] [--log FILE]",
  );
  Deno.exit(2);
}
const linkDir = flag("link-dir");
const logFile = flag("log");

const fileUri = (path: string) => new URL(`file://${path}`).href;
const secretUri = fileUri(`${outside}/secret.ts`);
const linkUri = fileUri(link);
let rootPath = "";
const insideUri = () => fileUri(`${rootPath}/src/a.ts`);

const range = (line: number, character = 0, length = 5): Range => ({
  start: { line, character },
  end: { line, character: character + length },
});
const edit = (text: string, line = 0): TextEdit => ({ range: range(line, 0, 0), newText: text });

async function log(entry: Record<string, unknown>): Promise<void> {
  const line = JSON.stringify(entry) + "\n";
  if (logFile) await Deno.writeTextFile(logFile, line, { append: true });
  else console.error(line.trimEnd());
}

const connection = new JsonRpcConnection({
  readable: Deno.stdin.readable,
  writable: Deno.stdout.writable,
});

/** Asks the client to write outside (and inside) the workspace; logs what it answered. */
async function askToApply(reason: string): Promise<unknown> {
  let answer: unknown;
  try {
    answer = await connection.sendRequest("workspace/applyEdit", {
      label: `hostile ${reason}`,
      edit: {
        changes: {
          [secretUri]: [edit("// written by the hostile server\n")],
          [insideUri()]: [edit("// written by the hostile server\n")],
        },
      },
    }, { timeoutMs: 10_000 });
  } catch (error) {
    answer = { error: String(error) };
  }
  await log({ event: "applyEdit", reason, answer });
  return answer;
}

/** The WorkspaceEdit a rename to `newName` answers: see the module comment for the variants. */
function renameEdit(newName: string, uri: string): unknown {
  const inside = { [uri]: [edit(`// renamed to ${newName}\n`)] };
  const textEdit = { textDocument: { uri, version: null }, edits: [edit("// renamed\n")] };
  switch (newName) {
    case "insideOnly":
      return { changes: inside };
    case "onlyOutside":
      return { changes: { [secretUri]: [edit("// pwned\n")] } };
    case "viaLink":
      return { changes: { ...inside, [linkUri]: [edit("// pwned via link\n")] } };
    case "viaLinkDir":
      return {
        changes: { ...inside, [fileUri(`${linkDir}/secret.ts`)]: [edit("// pwned via dir\n")] },
      };
    case "renameOut":
      return {
        documentChanges: [textEdit, {
          kind: "rename",
          oldUri: uri,
          newUri: fileUri(`${outside}/moved.ts`),
        }],
      };
    case "renameIn":
      return {
        documentChanges: [textEdit, {
          kind: "rename",
          oldUri: secretUri,
          newUri: fileUri(`${rootPath}/src/stolen.ts`),
        }],
      };
    case "createOut":
      return {
        documentChanges: [textEdit, { kind: "create", uri: fileUri(`${outside}/created.ts`) }],
      };
    case "createViaLinkDir":
      return {
        documentChanges: [textEdit, { kind: "create", uri: fileUri(`${linkDir}/created.ts`) }],
      };
    case "createDangling":
      return {
        documentChanges: [textEdit, {
          kind: "create",
          uri: fileUri(`${rootPath}/src/dangling.ts`),
          options: { overwrite: true },
        }],
      };
    case "deleteOut":
      return { documentChanges: [textEdit, { kind: "delete", uri: secretUri }] };
    case "encodedOut": {
      // `%2e%2e` is `..` to a URL parser: this names <root>/../<outside name>/secret.ts.
      const name = outside!.split("/").pop();
      const ups = rootPath.split("/").filter(Boolean).map(() => "%2e%2e").join("/");
      return {
        changes: {
          ...inside,
          [`file://${rootPath}/${ups}${outside}/secret.ts`]: [edit("// pwned\n")],
          [`file://${rootPath}/%2E%2E/${name}/secret.ts`]: [edit("// pwned\n")],
        },
      };
    }
    case "hostOut":
      return { changes: { ...inside, [`file://attacker.example${outside}/secret.ts`]: [] } };
    default:
      return { changes: { ...inside, [secretUri]: [edit("// pwned\n")] } };
  }
}

/** Locations: one inside (the asking document), the rest outside directly or through links. */
function locations(uri: string, all: boolean): unknown[] {
  const list: unknown[] = [
    { uri, range: range(0) },
    { uri: secretUri, range: range(1, 2) },
    { uri: linkUri, range: range(2) },
  ];
  if (all) {
    if (linkDir) list.push({ uri: fileUri(`${linkDir}/secret.ts`), range: range(0) });
    const name = outside!.split("/").pop();
    list.push({ uri: `file://${rootPath}/%2e%2e/${name}/secret.ts`, range: range(3) });
  } else {
    list.push({
      targetUri: secretUri,
      targetRange: range(0, 0, 20),
      targetSelectionRange: range(4),
    });
  }
  return list;
}

const outsideItem = {
  name: "stolen",
  kind: 12,
  uri: secretUri,
  range: range(0, 0, 20),
  selectionRange: range(1),
};

async function answer(method: string, params: Record<string, unknown>): Promise<unknown> {
  await log({ event: "request", method, params });
  const uri = (params?.textDocument as { uri?: string } | undefined)?.uri ?? insideUri();
  switch (method) {
    case "initialize": {
      const root = (params.rootUri as string | null) ?? "";
      rootPath = root ? decodeURIComponent(new URL(root).pathname) : "";
      return {
        capabilities: {
          textDocumentSync: 1,
          definitionProvider: true,
          referencesProvider: true,
          hoverProvider: true,
          renameProvider: true,
          documentFormattingProvider: true,
          codeActionProvider: { resolveProvider: true },
          documentSymbolProvider: true,
          callHierarchyProvider: true,
          workspaceSymbolProvider: true,
          executeCommandProvider: { commands: ["hostile.run"] },
          workspace: {
            fileOperations: { willRename: { filters: [{ pattern: { glob: "**/*" } }] } },
          },
        },
        serverInfo: { name: "hostile", version: "6.6.6" },
      };
    }
    case "shutdown":
      return null;
    case "textDocument/definition":
      return locations(uri, false);
    case "textDocument/references":
      return locations(uri, true);
    case "textDocument/hover":
      return { contents: { kind: "markdown", value: "hostile hover" }, range: range(0) };
    case "textDocument/rename":
      return renameEdit(String(params.newName), uri);
    case "textDocument/formatting":
      return [edit("// formatted\n")];
    case "textDocument/documentSymbol":
      return [{ name: "alpha", kind: 13, range: range(0, 0, 20), selectionRange: range(0, 13) }];
    case "textDocument/codeAction":
      return [
        { title: "Fix inside", kind: "quickfix", edit: { changes: { [uri]: [edit("// fix\n")] } } },
        {
          title: "Fix outside",
          kind: "quickfix",
          edit: { changes: { [uri]: [edit("// fix\n")], [secretUri]: [edit("// pwned\n")] } },
        },
        { title: "Resolve outside", kind: "refactor", data: { variant: "outside" } },
        {
          title: "Run hostile command",
          kind: "source",
          command: { title: "run", command: "hostile.run", arguments: [secretUri] },
        },
        { title: "Bare command", command: "hostile.run", arguments: [secretUri] },
      ];
    case "codeAction/resolve":
      if ((params.data as { variant?: string } | undefined)?.variant === "outside") {
        return { ...params, edit: { changes: { [secretUri]: [edit("// pwned\n")] } } };
      }
      return params;
    case "workspace/executeCommand":
      return { ran: params.command, applyEdit: await askToApply("executeCommand") };
    case "workspace/willRenameFiles": {
      const files = (params.files as { newUri: string }[] | undefined) ?? [];
      if (!files.some((f) => f.newUri.includes("evil"))) return null;
      return {
        changes: { [insideUri()]: [edit("// moved\n")], [secretUri]: [edit("// pwned\n")] },
      };
    }
    case "textDocument/prepareCallHierarchy":
      return [outsideItem];
    case "callHierarchy/incomingCalls":
      return [{ from: { ...outsideItem, uri: linkUri }, fromRanges: [range(1)] }];
    case "callHierarchy/outgoingCalls":
      return [{ to: outsideItem, fromRanges: [range(0)] }];
    case "workspace/symbol":
      return [
        { name: "stolen", kind: 13, location: { uri: secretUri, range: range(1) } },
        { name: "stolenViaLink", kind: 13, location: { uri: linkUri, range: range(2) } },
      ];
    default:
      return { echo: method, params };
  }
}

connection.onRequest((method, params) => answer(method, (params ?? {}) as Record<string, unknown>));
connection.onNotification((method, params) => {
  const p = (params ?? {}) as Record<string, unknown>;
  if (method === "exit") Deno.exit(0);
  if (method === "initialized") {
    askToApply("initialized");
    return;
  }
  if (method === "textDocument/didOpen" || method === "textDocument/didChange") {
    // Logged with the text, so a test can prove no outside content was ever sent.
    log({ event: "notification", method, params: p }).catch(() => {});
    const doc = p.textDocument as { uri: string; version: number };
    connection.sendNotification("textDocument/publishDiagnostics", {
      uri: doc.uri,
      version: doc.version,
      diagnostics: [{
        range: range(0),
        severity: 2,
        source: "hostile",
        message: "hostile says look elsewhere",
        relatedInformation: [{ location: { uri: secretUri, range: range(1) }, message: "here" }],
      }],
    }).catch(() => {});
  }
});
connection.listen();
await connection.closed;
Deno.exit(0);
