// typescript-language-server's diagnostics asked of tsserver (adapters/typescript_diagnostics.ts)
// instead of awaited: the server pushes them without versions, 300–800 ms after a change, and not
// at all for a file that stays clean. Against the real server: the answer is exactly what the
// server pushes later, and lspgate answers an edit on disk, and a clean file, without waiting.
import assert from "node:assert/strict";
import { join } from "node:path";
import type * as proto from "vscode-languageserver-protocol";
import { typescriptAdapter } from "../../adapters/typescript.ts";
import { tsserverDiagnostics, vscodeFileUri } from "../../adapters/typescript_diagnostics.ts";
import { JsonRpcConnection } from "../../src/jsonrpc/mod.ts";
import { CLIENT_CAPABILITIES } from "../../src/lsp/capabilities.ts";
import type { ClientOptions } from "../../src/lsp/client.ts";
import { spawnServer } from "../../src/lsp/process.ts";
import { fromFileUrl, toFileUrl } from "../../src/servers/uri.ts";
import { harness } from "../helpers/session.ts";
import { pick } from "../helpers/expect.ts";

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: "ES2022",
    module: "ESNext",
    moduleResolution: "bundler",
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    lib: ["ES2022"],
  },
  include: ["src"],
});

/**
 * Every kind tsserver reports: a syntax error, type errors (one after CJK and an emoji, so UTF-16
 * offsets count), unused names (hints, "unnecessary") and a deprecated call (a hint with related
 * information). TypeScript 5.9 gives no diagnostic the warning category, so there is none here.
 */
const SOURCE = [
  'import { helper } from "./dep.ts";',
  "",
  "/** @deprecated use fresh() */",
  "export function stale(): number {",
  "  return 1;",
  "}",
  "",
  "export function use(count: number): string {",
  '  const 名前 = "🍎 りんご", wrong: string = count;',
  "  const unused = stale();",
  "  return count +;",
  "}",
  "",
].join("\n");

/** A language server spoken to over our own connection, every push it sends kept. */
interface RawServer {
  connection: JsonRpcConnection;
  capabilities: proto.ServerCapabilities;
  pushes: proto.PublishDiagnosticsParams[];
  close(): Promise<void>;
}

async function startRaw(
  root: string,
  capabilities: proto.ClientCapabilities,
  settings: Record<string, unknown>,
): Promise<RawServer & { initializationOptions: unknown }> {
  const found = await typescriptAdapter.resolve({ root, workspace: root, trusted: false });
  const server = spawnServer({ command: found.command, cwd: root }, typescriptAdapter.installHint);
  const connection = new JsonRpcConnection(
    { readable: server.stdout, writable: server.stdin },
    { defaultTimeoutMs: 60_000, name: "typescript" },
  );
  const pushes: proto.PublishDiagnosticsParams[] = [];
  connection.onRequest(() => null);
  connection.onNotification((method, params) => {
    if (method === "textDocument/publishDiagnostics") {
      pushes.push(params as proto.PublishDiagnosticsParams);
    }
  });
  connection.listen();
  const result = await connection.sendRequest<proto.InitializeResult>("initialize", {
    processId: null,
    rootUri: toFileUrl(root),
    workspaceFolders: [{ uri: toFileUrl(root), name: "ws" }],
    capabilities,
    initializationOptions: found.initializationOptions,
  });
  await connection.sendNotification("initialized", {});
  await connection.sendNotification("workspace/didChangeConfiguration", { settings });
  return {
    connection,
    capabilities: result.capabilities,
    pushes,
    initializationOptions: found.initializationOptions,
    async close() {
      await connection.sendRequest("shutdown", undefined, { timeoutMs: 5000 }).catch(() => {});
      await connection.sendNotification("exit", undefined).catch(() => {});
      const timer = setTimeout(() => server.kill("SIGKILL"), 5000);
      await server.exited;
      clearTimeout(timer);
      connection.close();
      await connection.closed;
    },
  };
}

/** The pushes for `path` (the server writes its URIs its own way: compared as paths). */
function pushesFor(raw: RawServer, path: string): proto.PublishDiagnosticsParams[] {
  return raw.pushes.filter((p) => fromFileUrl(p.uri) === path);
}

/** Waits (a test may) until the server has pushed for `path` and then kept quiet for a second. */
async function settledPush(raw: RawServer, path: string): Promise<proto.Diagnostic[]> {
  const deadline = performance.now() + 30_000;
  let seen = -1;
  while (performance.now() < deadline) {
    const count = pushesFor(raw, path).length;
    if (count > 0 && count === seen) return pushesFor(raw, path).at(-1)!.diagnostics;
    seen = count;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`typescript-language-server pushed nothing for ${path}`);
}

const VARIANTS = [
  {
    name: "with lspgate's capabilities and the adapter's settings",
    prefix: "lspgate_tsdiag_",
    capabilities: CLIENT_CAPABILITIES,
    settings: typescriptAdapter.settings ?? {},
    codes: [1109, 2322, 6133, 6199, 6133, 6387],
  },
  {
    // The server escapes more of a path than a URL does (vscode-uri): related information names
    // the file as the server writes it.
    name: "with tags, ignored codes, and a folder name the server escapes",
    prefix: "lspgate tsdiag+@(1)_",
    capabilities: {
      ...CLIENT_CAPABILITIES,
      textDocument: {
        ...CLIENT_CAPABILITIES.textDocument,
        publishDiagnostics: {
          ...CLIENT_CAPABILITIES.textDocument?.publishDiagnostics,
          tagSupport: { valueSet: [1, 2] as proto.DiagnosticTag[] },
        },
      },
    },
    settings: { ...typescriptAdapter.settings, diagnostics: { ignoredCodes: [2322] } },
    codes: [1109, 6133, 6199, 6133, 6387],
  },
];

Deno.test("tsserverDiagnostics() answers what typescript-language-server pushes, before it pushes", async (t) => {
  for (const variant of VARIANTS) {
    await t.step(variant.name, async () => {
      const root = await Deno.realPath(await Deno.makeTempDir({ prefix: variant.prefix }));
      const path = join(root, "src", "a.ts");
      await Deno.mkdir(join(root, "src"));
      await Deno.writeTextFile(join(root, "tsconfig.json"), TSCONFIG);
      await Deno.writeTextFile(join(root, "src", "dep.ts"), "export const helper = 1;\n");
      await Deno.writeTextFile(path, SOURCE);
      const raw = await startRaw(root, variant.capabilities, variant.settings);
      try {
        const uri = toFileUrl(path);
        await raw.connection.sendNotification("textDocument/didOpen", {
          textDocument: { uri, languageId: "typescript", version: 1, text: SOURCE },
        });
        const asked = await tsserverDiagnostics({
          uri,
          options: {
            initializationOptions: raw.initializationOptions,
            settings: variant.settings,
          } as ClientOptions,
          serverCapabilities: raw.capabilities,
          clientCapabilities: variant.capabilities,
          request: <R>(method: string, params: unknown) =>
            raw.connection.sendRequest<R>(method, params),
        });
        // The server's first push comes 300 ms after the open at the earliest (its geterr delay),
        // and its geterr queues behind the requests the hook sent at once.
        assert.equal(pushesFor(raw, path).length, 0, "answered only after the server's push");
        assert.ok(asked);
        assert.deepEqual(asked.map((d) => d.code), variant.codes);
        assert.deepEqual(asked, await settledPush(raw, path));
        const deprecated = asked.find((d) => d.code === 6387)!;
        assert.equal(deprecated.relatedInformation?.[0].location.uri, vscodeFileUri(path));
      } finally {
        await raw.close();
        await Deno.remove(root, { recursive: true });
      }
    });
  }
});

Deno.test("vscodeFileUri() escapes a path as vscode-uri does, more than a URL does", () => {
  // Expected values from vscode-uri 3.2.0's URI.file(path).toString().
  assert.equal(
    vscodeFileUri("/tmp/a b+c@d(1)!/名前 🍎/x~y_z-1.ts"),
    "file:///tmp/a%20b%2Bc%40d%281%29%21/%E5%90%8D%E5%89%8D%20%F0%9F%8D%8E/x~y_z-1.ts",
  );
  assert.equal(
    vscodeFileUri("/x/%25\"<>\\^`{|}=;,*&$#?[]:'é.ts"),
    "file:///x/%2525%22%3C%3E%5C%5E%60%7B%7C%7D%3D%3B%2C%2A%26%24%23%3F%5B%5D%3A%27%C3%A9.ts",
  );
});

const CART = "src/cart.ts";
const INDEX = "src/index.ts";
const FORMAT = "src/format.ts";
/**
 * Below the 1500 ms of silence after which the push path takes typescript-language-server's
 * silence for "still clean" (the adapter's stillCleanAfterMs): a clean answer within it was asked
 * of tsserver, not inferred from a quiet server.
 */
const BUDGET_MS = 1400;

Deno.test("typescript: diagnostics answer an edit on disk, and a clean file, without waiting for a push", async (t) => {
  const h = await harness("typescript");
  try {
    const { ws } = h;
    const original = await ws.read(CART);
    const ask = async (file: string) => {
      const answer = await h.ok({ action: "diagnostics", file, timeout: BUDGET_MS });
      const [result] = answer.details.files as {
        status: string;
        diagnostics: Record<string, unknown>[];
      }[];
      return {
        status: result.status,
        diagnostics: result.diagnostics.map((d) =>
          pick(d, ["line", "column", "severity", "code", "message"])
        ),
      };
    };
    // The server loads the project on its first open, and answers once it has.
    assert.equal((await h.ok({ action: "diagnostics", file: CART })).details.total, 0);
    assert.equal((await h.ok({ action: "diagnostics", file: INDEX })).details.total, 0);

    await t.step("an edit on disk followed by an immediate ask answers the new state", async () => {
      const steps = [
        {
          text: original + 'export const broken: number = "one";\n',
          message: "Type 'string' is not assignable to type 'number'.",
        },
        {
          text: original + "export const broken: string = 1;\n",
          message: "Type 'number' is not assignable to type 'string'.",
        },
        { text: original },
        { text: original + "// A harmless comment: the file stays clean.\n" },
      ];
      try {
        for (const step of steps) {
          await ws.write(CART, step.text);
          const at = step.message && await ws.locate(CART, "broken");
          const expected = !at ? [] : [{
            line: at.line,
            column: at.column,
            severity: "error",
            code: 2322,
            message: step.message,
          }];
          assert.deepEqual(await ask(CART), { status: "ok", diagnostics: expected });
        }
      } finally {
        await ws.write(CART, original);
      }
    });

    await t.step(
      "an unchanged clean file answers clean at once after another file changed",
      async () => {
        const format = await ws.read(FORMAT);
        try {
          await ws.write(FORMAT, format + "\n// Nothing index.ts uses changes.\n");
          assert.deepEqual(await ask(INDEX), { status: "ok", diagnostics: [] });
          assert.deepEqual(await ask(INDEX), { status: "ok", diagnostics: [] });
        } finally {
          await ws.write(FORMAT, format);
        }
      },
    );
  } finally {
    await h.close();
  }
});
