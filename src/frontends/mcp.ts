import { onStopSignal } from "./signals.ts";
import type { Readable, Writable } from "node:stream";
// The SDK's `./*` export maps `x.js` to types at `x.js.d.ts`, which do not exist, so Deno would
// type its modules as `any`; @ts-types names the declaration files.
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ACTIONS } from "../actions/table.ts";
import type { SessionFacts } from "../actions/types.ts";
import type { Response } from "../session.ts";
import { handleWithProgress, type ProgressGate } from "./gate.ts";
import { GuardedStdioTransport } from "./mcp_transport.ts";

/**
 * What the MCP server needs of a session: its facts (role, mutations, version) and answers. A
 * session in this process, the daemon through a client (RemoteSession), or, in the daemon, one
 * client's connection (mcp_connection.ts).
 */
export interface McpGate extends ProgressGate {
  readonly facts: SessionFacts;
  close(): Promise<void>;
}

/** The one tool's name. */
export const TOOL_NAME = "lsp";

const ACTION_NAMES = [...ACTIONS.keys()] as [string, ...string[]];

/**
 * A number advertised as an integer: whole numbers and ranges are checked by the session, whose
 * INVALID_INPUT says what to do ("line is 1-based: the first line is 1").
 */
function integer(description: string) {
  return z.number().meta({ type: "integer", description });
}

// Types only: the session validates each action's fields itself and answers INVALID_INPUT with a
// message that says what to do; per-action rules are left to it. The object is loose so another
// agent's spelling of a field (`operation`, `filePath`, `character`, …) reaches the session, which
// normalises it as it does a JSON line and then refuses any field it does not know by name. For
// the same reason `action` is not required (`operation` may stand for it) and takes any name.
const INPUT_SCHEMA = z.looseObject({
  action: z.union([
    z.enum(ACTION_NAMES),
    z.string().describe("Another agent's name for an action (goToDefinition, findReferences, …)."),
  ]).describe(
    "What to do; the tool description lists each action. Other agents' names and fields are " +
      "accepted too (operation, goToDefinition, findReferences, documentSymbol, filePath, " +
      "character, …).",
  ),
  file: z.string().describe(
    "Path relative to the workspace root (or absolute inside it). diagnostics also takes a " +
      'glob or "*" (whole workspace); symbols takes "*" with query for a workspace search.',
  ),
  files: z.array(z.string()).describe("diagnostics: several paths at once (up to 64)."),
  line: integer("1-based line number."),
  column: integer(
    "1-based column counted in Unicode code points (characters as you read them, not bytes " +
      "or UTF-16 units). Or give symbol instead.",
  ),
  character: integer(
    "Another agent's column: with `operation` + `filePath` (Claude Code, OpenCode) 1-based; " +
      "with `action` + `file` and no `column` (ExAthena) line and character are 0-based, and so " +
      "is the answer.",
  ),
  occurrence: integer("With symbol: its N-th occurrence on the line (oh-my-pi's; symbol#N)."),
  symbol: z.string().describe(
    'Instead of column: text on `line` to point at, e.g. "greet"; "greet#2" for its second ' +
      "occurrence on that line.",
  ),
  query: z.string().describe(
    'Instead of line/column: a symbol name to find in file ("greet", "Class.method"). ' +
      'symbols with file "*": the search text. code_actions with apply: the title of the ' +
      "action to apply. request: the LSP method.",
  ),
  new_name: z.string().describe("rename: the new name. rename_file: the destination path."),
  apply: z.boolean().describe(
    "rename, rename_file, format, code_actions: write the edits instead of previewing them.",
  ),
  edit_hash: z.string().describe(
    "With apply: the preview's details.edit_hash. The edit is written only if it is still " +
      "exactly what was previewed; otherwise EDIT_CONFLICT and nothing is written.",
  ),
  check: z.boolean().describe(
    "rename, format, code_actions: also show the diagnostics the edit would add (nothing written).",
  ),
  if_clean: z.boolean().describe(
    "With apply: write only if the edit adds no error; else applied: false with those errors.",
  ),
  allow_partial: z.boolean().describe(
    "rename, rename_file with apply: write even when the answer is partial (details.partial: the " +
      "server did not see every file, so uses it missed stay unchanged); refused otherwise.",
  ),
  content: z.string().describe(
    "diagnostics (what-if): a proposed full text of the file; answers what the server would " +
      "report for it and what is new or gone. The disk is never touched.",
  ),
  edits: z.array(z.record(z.string(), z.unknown())).describe(
    "diagnostics (what-if): text edits against the current file ({line, column, endLine, " +
      "endColumn, newText}, 1-based code points) instead of content.",
  ),
  include_declaration: z.boolean().describe(
    "references: include the declaration itself (default true).",
  ),
  severity: z.enum(["error", "warning", "info", "hint", "all"]).describe(
    'diagnostics: the least severe level to report ("all" is every level).',
  ),
  timeout: z.number().describe(
    "Timeout of this call in seconds (5–60, as oh-my-pi's lsp); a value above 60 is read as " +
      "milliseconds.",
  ),
  timeout_ms: integer("Timeout of this call in milliseconds."),
  server: z.string().describe("restart: the server (key or adapter id); all when omitted."),
  payload: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.string()])
    .describe("request: the LSP params, as an object (or a JSON string)."),
  end_line: integer("code_actions: 1-based last line of the range."),
  end_column: integer("code_actions: 1-based end column of the range, in code points."),
}).partial();

/**
 * The answer's `details`, returned as `structuredContent`. Permissive: which fields appear depends
 * on the action, and any other field may appear too; the ones programs read are described.
 */
const OUTPUT_SCHEMA = z.looseObject({
  locations: z.array(z.unknown()).describe(
    "definition, declaration, type_definition, implementation, references: " +
      "[{file, line, column, endLine, endColumn}], 1-based, columns in code points; file " +
      "workspace-relative inside the root, absolute outside.",
  ),
  symbols: z.array(z.unknown()).describe(
    "symbols: [{name, kind, file, line, column, endLine, container?}], kind as a word.",
  ),
  calls: z.array(z.unknown()).describe(
    "call_hierarchy, incoming_calls, outgoing_calls: [{name, kind, file, line, column, " +
      "callSites[]}].",
  ),
  text: z.string().describe("hover: the markdown the server gave."),
  range: z.unknown().describe("hover: {line, column, endLine, endColumn} of the hovered symbol."),
  files: z.union([z.array(z.unknown()), z.number()]).describe(
    "diagnostics: [{file, status (ok|timeout|unsupported|error), diagnostics[{line, column, " +
      "endLine, endColumn, severity, message, source?, code?}]}]. Edits: the number of files.",
  ),
  changes: z.array(z.unknown()).describe(
    "rename, rename_file, code_actions, format: [{file, edits[]}], each edit a range and its " +
      "new text.",
  ),
  edits: z.number().describe("Edits: the number of text edits."),
  applied: z.boolean().describe("Edits: whether they were written (false for a preview)."),
  edit_hash: z.string().describe(
    "Edit previews: pass it back as edit_hash with apply: true to write exactly this edit.",
  ),
  total: z.number().describe("How many results there were before any cut."),
  truncated: z.boolean().describe("Whether the list or text was cut to its bound."),
  partial: z.boolean().describe(
    "Whether the server was still loading the project: the answer may be incomplete.",
  ),
  supported: z.boolean().describe("false when the server does not support what was asked."),
  syntaxOnly: z.boolean().describe("true when the answer came from lspgate's parser alone."),
  sandboxed: z.boolean().describe("Whether the language servers behind the answer are confined."),
  sandboxBackend: z.enum(["bwrap", "landlock", "none"]).describe(
    "How they are confined: bubblewrap, Landlock, or not at all.",
  ),
}).partial().describe(
  "The answer's details: stable fields for programs, 1-based positions with columns in code " +
    "points. Which fields appear depends on the action.",
);

/** The tool's annotations for this session: read-only unless it may apply edits. */
export function toolAnnotations(session: McpGate): ToolAnnotations {
  const mutates = session.facts.role === "main" && session.facts.allowMutations;
  return {
    title: "Language server",
    readOnlyHint: !mutates,
    destructiveHint: mutates,
    idempotentHint: false,
    openWorldHint: false,
  };
}

/** The tool's description: what it is, how positions are given, and every action's summary. */
export function toolDescription(session: McpGate): string {
  const actions = [...ACTIONS.values()].map((a) => `- ${a.name}: ${a.summary}`).join("\n");
  const writes = session.facts.role === "subagent"
    ? "This session is read-only (role subagent): apply and write-class requests are refused."
    : session.facts.allowMutations
    ? "Edits are previewed unless apply is true; apply writes files in the workspace."
    : "Edits are previewed only: apply is refused (lspgate runs without --allow-mutations).";
  return [
    "Code intelligence from language servers for the files of this workspace: definitions, " +
    "references, types, diagnostics, call and type hierarchies, safe renames.",
    "Positions: `line` (1-based) plus `column` (1-based, in Unicode code points) or `symbol` " +
    '(text on that line; "name#2" for its second occurrence), or `query` (a symbol name).',
    writes,
    "Edits are previews first: to write one, call again with apply: true and the preview's " +
    "details.edit_hash as edit_hash (rename, rename_file, code_actions, format). If the files " +
    "changed since the preview, the apply answers EDIT_CONFLICT and writes nothing: preview " +
    "again.",
    "Other agents' field and action names are accepted too (operation, filePath, character, " +
    "goToDefinition, findReferences, documentSymbol, …).",
    "Actions:",
    actions,
  ].join("\n\n");
}

/**
 * A Response as an MCP tool result: the text as content and `details` as structuredContent; an
 * error Response is `isError` with the text `CODE: message`.
 */
export function toToolResult(response: Response): CallToolResult {
  if (response.ok) {
    const checked = OUTPUT_SCHEMA.safeParse(response.details);
    if (!checked.success) {
      // A bug of ours; the SDK would turn the whole answer into an error, so the text stands alone.
      console.error(
        `lspgate: details do not match the MCP output schema: ${checked.error.message}`,
      );
    }
    return {
      content: response.content,
      structuredContent: checked.success ? response.details : {},
    };
  }
  return {
    content: [{ type: "text", text: `${response.error.code}: ${response.error.message}` }],
    isError: true,
  };
}

/**
 * Builds an MCP server with the one `lsp` tool over `session`; connect it to any transport (the
 * SDK's in-memory pair in tests). Each call goes to `session.handle()`, and an MCP cancellation
 * of a call cancels its request.
 */
export function createMcpServer(session: McpGate): McpServer {
  const server = new McpServer(
    { name: "lspgate", version: session.facts.version },
    {
      instructions: "One `lsp` tool: language-server code intelligence for this workspace. " +
        "Lines and columns are 1-based; columns count Unicode code points.",
    },
  );
  let next = 0;
  server.registerTool(TOOL_NAME, {
    title: "Language server",
    description: toolDescription(session),
    inputSchema: INPUT_SCHEMA,
    outputSchema: OUTPUT_SCHEMA,
    annotations: toolAnnotations(session),
  }, async (args, extra) => {
    const id = `mcp-${++next}`;
    const cancel = () => session.handle({ id: `${id}-cancel`, action: "cancel", target: id });
    extra.signal.addEventListener("abort", cancel, { once: true });
    try {
      // A client that gave a progress token hears what the servers are doing while it waits.
      const token = extra._meta?.progressToken;
      if (token === undefined) return toToolResult(await session.handle({ ...args, id }));
      let step = 0;
      const response = await handleWithProgress(
        session,
        { ...args, id, progress: true },
        (update) => {
          extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: ++step, message: update.message || "ready" },
          }).catch(() => {});
        },
      );
      return toToolResult(response);
    } finally {
      extra.signal.removeEventListener("abort", cancel);
    }
  });
  return server;
}

/** Options of serveMcp(): the streams to speak over (default: this process's stdin and stdout). */
export interface ServeMcpOptions {
  stdin?: Readable;
  stdout?: Writable;
}

/**
 * `lspgate mcp`: an MCP server over stdio with the one `lsp` tool. stdout carries MCP messages
 * only (stray console output goes to stderr meanwhile). When the client goes away (stdin ends and
 * the calls it sent are answered, the transport closes, or SIGTERM on the process's own stdio)
 * every language server is shut down and it returns 0.
 */
export async function serveMcp(session: McpGate, options: ServeMcpOptions = {}): Promise<number> {
  // Loaded here, not at the top: a bundle hoists every static `node:` import to its start, and
  // node:process starts Node's streams there (~10 ms) in every front end, not only MCP's.
  const own = async () => (await import("node:process")).default;
  const stdin = options.stdin ?? (await own()).stdin;
  const stdout = options.stdout ?? (await own()).stdout;
  // Only this process's own stdout carries protocol (the daemon's is not a client's).
  const restore = options.stdout ? () => {} : divertConsoleToStderr();
  const server = createMcpServer(session);
  const closed = new Promise<void>((resolve) => server.server.onclose = resolve);
  // Our own framing: an oversize or malformed message is answered, not the end of the server.
  const transport = new GuardedStdioTransport(stdin, stdout);
  // The SDK's stdio transport does not watch for the end of stdin, yet the client closing it is
  // how MCP over stdio says goodbye: the calls already sent are answered first. SIGTERM is what a
  // client sends when that was not enough: it stops at once.
  const stop = () => void server.close();
  const finish = () => void transport.settled().then(stop);
  const unlisten = options.stdin ? () => {} : onStopSignal(stop);
  // A client that vanishes mid-answer breaks the pipe; that is the end, not a crash.
  const ignore = () => {};
  stdout.on("error", ignore);
  try {
    await server.connect(transport);
    // After connect: the transport reads a last line without a newline at the end first.
    stdin.once("end", finish);
    stdin.once("close", finish);
    await closed;
    return 0;
  } finally {
    stdin.off("end", finish);
    stdin.off("close", finish);
    unlisten();
    await session.close();
    stdout.off("error", ignore);
    restore();
  }
}

/** Sends console.log/info/debug to stderr, so nothing but protocol reaches stdout. */
function divertConsoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = console.error;
  return () => Object.assign(console, saved);
}
