// Answers when no language server can run for a file (no adapter for its type, the binary
// missing, no Deno permission to run it, or servers turned off): the outline and the parse
// errors come from lspgate's WebAssembly parsers, and say so; actions that need a server still
// fail, naming the server that would answer and where the asked-for symbol is.
import { type ErrorCode, LspGateError } from "../errors.ts";
import { boundList, boundText, plural } from "../format/bound.ts";
import { findSymbolColumn } from "../lsp/positions.ts";
import { TextLines } from "../lsp/text_lines.ts";
import type { WorkspacePath } from "../permissions/workspace.ts";
import { pickAdapter } from "../servers/pick.ts";
import {
  analyzeSyntax,
  checkNewName,
  type FileSyntax,
  findSymbol,
  languageName,
  type SyntaxLanguage,
  syntaxLanguageOf,
  SyntaxUnavailable,
} from "../syntax/mod.ts";
import type { DiagnosticView, FileDiagnostics } from "./diagnostics.ts";
import { resolveFile } from "./document.ts";
import { plainName } from "./plain_name.ts";
import type { SymbolView } from "./symbols.ts";
import type { ActionContext, ActionDef, ActionResult } from "./types.ts";

/** Why no language server answers for a file, and which one would. */
export interface NoServer {
  /** The adapter that would give the full answer, when one handles the file type. */
  server?: string;
  /** In words: "pyright-langserver was not found on PATH … Install pyright: …". */
  reason: string;
}

/** A file's diagnostics from the parser alone. */
export interface SyntaxFileDiagnostics extends FileDiagnostics {
  syntaxOnly: true;
  /** The grammar that parsed it. */
  parser: SyntaxLanguage;
  /** The server that would also report semantic problems. */
  server?: string;
  reason: string;
}

/** Files larger than this are not parsed (a server would have them; the parser says nothing). */
const MAX_SYNTAX_BYTES = 8 * 1024 * 1024;

/**
 * Whether `error` means that no language server can run for `path`, and why: no adapter for its
 * type, all its adapters turned off (`--no-servers`), the binary missing, or no Deno permission
 * to run it. Undefined for any other error (a crash, a timeout, a bad input).
 */
export async function whyNoServer(
  context: ActionContext,
  path: string,
  error: unknown,
): Promise<NoServer | undefined> {
  if (!isNoServerError(error)) return undefined;
  const code: ErrorCode = error.code;
  // A run permission, not a read one: a file lspgate may not read has no syntax answer either.
  if (code === "PERMISSION_DENIED" && !Array.isArray(error.data?.run)) return undefined;
  // The adapter that would serve the file, turned off or not.
  const pick = await pickAdapter(path, context.workspace.path, context.manager.options.adapters)
    .catch(() => undefined);
  const named = typeof error.data?.server === "string" ? error.data.server : undefined;
  const server = named ?? pick?.adapter.id;
  if (code !== "NO_SERVER") return { server, reason: error.message };
  if (pick && context.manager.options.serverConfig?.[pick.adapter.id]?.disabled) {
    return {
      server: pick.adapter.id,
      reason: `${pick.adapter.id} is turned off by --no-servers or by servers.${pick.adapter.id}` +
        ".disabled in the config",
    };
  }
  return { reason: `no language server handles ${extensionOf(path)} files` };
}

const NO_SERVER_CODES: ReadonlySet<ErrorCode> = new Set([
  "NO_SERVER",
  "SERVER_NOT_INSTALLED",
  "PERMISSION_DENIED",
]);

function isNoServerError(error: unknown): error is LspGateError {
  return error instanceof LspGateError && NO_SERVER_CODES.has(error.code);
}

/** `--no-servers`: every adapter, shipped or from the config, turned off. */
export function serversOff<T extends { disabled?: boolean }>(
  servers: Record<string, T>,
  adapters: readonly { id: string }[],
): Record<string, T> {
  const off: Record<string, T> = { ...servers };
  for (const id of [...adapters.map((a) => a.id), ...Object.keys(servers)]) {
    off[id] = { ...off[id], disabled: true };
  }
  return off;
}

/** `symbols` for one file with no server: the outline from the syntax tree, or `error` again. */
export async function syntaxOutline(
  context: ActionContext,
  input: { file: string; query?: string },
  error: unknown,
): Promise<ActionResult> {
  const { rel, why, syntax } = await syntaxOf(context, input.file, error, { outline: true });
  let symbols = syntax.symbols;
  if (input.query) {
    const q = input.query.toLowerCase();
    symbols = symbols.filter((s) => s.name.toLowerCase().includes(q));
  }
  const note = syntaxNote(syntax.language, why, "outline");
  const details = {
    syntaxOnly: true,
    parser: syntax.language,
    server: why.server,
    reason: why.reason,
  };
  if (symbols.length === 0) {
    return {
      text: (input.query
        ? `No symbols matching \`${input.query}\` in ${rel}.`
        : `${rel} has no symbols.`) + note,
      details: { symbols: [], total: 0, truncated: false, ...details },
    };
  }
  const bounded = boundList(symbols);
  const views: SymbolView[] = bounded.items.map((s) => {
    const view: SymbolView = {
      name: s.name,
      kind: s.kind,
      file: rel,
      line: s.line,
      column: s.column,
      endLine: s.endLine,
    };
    if (s.container) view.container = s.container;
    return view;
  });
  const lines = bounded.items.map((s) => {
    // A Go method or a Rust impl's function is filed under a type it is not nested in: named so.
    const parts = s.container?.split(".") ?? [];
    const owner = parts.length > s.depth ? `${parts.slice(s.depth).join(".")}.` : "";
    return `${"  ".repeat(s.depth)}${s.kind} ${owner}${s.name} (${s.line}:${s.column})`;
  });
  const more = bounded.truncated ? `\n… ${bounded.total - bounded.items.length} more.` : "";
  return {
    text: boundText(
      `Symbols in ${rel} (${plural(bounded.total, "symbol")}):\n${lines.join("\n")}${more}`,
    ).text + note,
    details: { symbols: views, total: bounded.total, truncated: bounded.truncated, ...details },
  };
}

/**
 * `diagnostics` for one file with no server: its parse errors (of `text` when given, a text
 * proposed for it, else of the file), or `error` again.
 */
export async function syntaxDiagnostics(
  context: ActionContext,
  file: string,
  error: unknown,
  text?: string,
): Promise<SyntaxFileDiagnostics> {
  const { rel, why, syntax } = await syntaxOf(context, file, error, { outline: false, text });
  const diagnostics: DiagnosticView[] = syntax.errors.map((e) => ({
    line: e.line,
    column: e.column,
    endLine: e.endLine,
    endColumn: e.endColumn,
    severity: "error",
    message: e.message,
    source: "syntax",
  }));
  const result: SyntaxFileDiagnostics = {
    file: rel,
    status: "ok",
    diagnostics,
    syntaxOnly: true,
    parser: syntax.language,
    reason: why.reason,
  };
  if (why.server) result.server = why.server;
  return result;
}

/** Adds to a diagnostics answer the note that some files were checked for syntax only. */
export function withSyntaxNote(result: ActionResult, files: FileDiagnostics[]): ActionResult {
  const syntaxOnly = files.filter((f): f is SyntaxFileDiagnostics =>
    (f as Partial<SyntaxFileDiagnostics>).syntaxOnly === true
  );
  if (syntaxOnly.length === 0) return result;
  // Files that fell back for the same reason share one note.
  const groups = new Map<string, SyntaxFileDiagnostics[]>();
  for (const f of syntaxOnly) {
    const key = `${f.parser}\u0000${f.server}\u0000${f.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const notes = [...groups.values()].map((group) => {
    const names = group.slice(0, 3).map((f) => f.file).join(", ") +
      (group.length > 3 ? ` and ${group.length - 3} more` : "");
    const { parser, server, reason } = group[0];
    return syntaxNote(parser, { server, reason }, "parse errors", names);
  });
  return {
    text: result.text + notes.join(""),
    details: { ...result.details, syntaxOnly: true },
  };
}

/**
 * An action that needs a server, failing because none can run, fails the same way with more
 * said: the server that would answer, where the symbol asked about is (from the syntax tree),
 * and that `symbols` and `diagnostics` still answer syntax-only. A rename's new name is first
 * checked against the file's grammar.
 */
export function withSyntax(action: ActionDef): ActionDef {
  if (action.name === "symbols" || action.name === "diagnostics") return action;
  return {
    ...action,
    async run(input, context) {
      const request = input as Record<string, unknown>;
      if (action.name === "rename") await checkRename(context, request);
      try {
        return await action.run(input, context);
      } catch (error) {
        throw await explained(context, action.name, request, error);
      }
    },
  };
}

/**
 * Where `query` (a symbol name, or dotted) is, by the syntax tree of `text`; within `context`'s
 * timeout and cancel signal when given (TIMEOUT, CANCELLED).
 */
export async function positionFromTree(
  file: string,
  text: string,
  query: string,
  context?: Pick<ActionContext, "signal" | "timeoutMs">,
): Promise<{ line: number; column: number } | undefined> {
  const language = syntaxLanguageOf(file);
  if (!language) return undefined;
  try {
    const found = findSymbol(
      (await analyzeSyntax(language, text, { ...runOptions(context), file })).symbols,
      query,
    );
    return found && { line: found.line, column: found.column };
  } catch (error) {
    if (error instanceof SyntaxUnavailable) return undefined;
    throw error;
  }
}

async function explained(
  context: ActionContext,
  action: string,
  input: Record<string, unknown>,
  error: unknown,
): Promise<unknown> {
  if (!isNoServerError(error) || typeof input.file !== "string" || input.file === "*") {
    return error;
  }
  let path: WorkspacePath;
  try {
    path = await resolveFile(context, input.file);
  } catch {
    return error;
  }
  const why = await whyNoServer(context, path, error);
  const language = syntaxLanguageOf(path);
  if (!why || !language) return error;
  const rel = context.workspace.relative(path);
  const position = await positionNote(context, path, rel, language, input);
  const turnedOff = error.code === "NO_SERVER" && why.server !== undefined;
  const message =
    (turnedOff
      ? `${action} needs a language server, and ${why.reason}; ${why.server} would answer it.`
      : error.message) +
    (position?.note ?? "") +
    ` Without a server, symbols and diagnostics answer for ${rel} from lspgate's ` +
    `${languageName(language)} parser (syntax only).`;
  return new LspGateError(error.code, message, {
    ...error.data,
    ...(why.server ? { server: why.server } : {}),
    ...(position?.at ? { position: position.at } : {}),
  });
}

async function positionNote(
  context: ActionContext,
  path: WorkspacePath,
  rel: string,
  language: SyntaxLanguage,
  input: Record<string, unknown>,
): Promise<{ note: string; at?: { line: number; column: number } } | undefined> {
  const wanted = typeof input.query === "string"
    ? input.query
    : typeof input.symbol === "string"
    ? input.symbol
    : undefined;
  if (wanted === undefined) return undefined;
  try {
    const text = await context.workspace.readText(path, { maxBytes: MAX_SYNTAX_BYTES });
    const at = await positionOf(context, rel, language, text, input);
    if (!at) return { note: ` \`${wanted}\` is not in ${rel}'s syntax outline.` };
    return { note: ` \`${wanted}\` is at ${rel}:${at.line}:${at.column}.`, at };
  } catch {
    return undefined;
  }
}

/** The position a request names (line + column, line + symbol, or query), from text and tree. */
async function positionOf(
  context: ActionContext,
  rel: string,
  language: SyntaxLanguage,
  text: string,
  input: Record<string, unknown>,
): Promise<{ line: number; column: number } | undefined> {
  const line = typeof input.line === "number" ? input.line : undefined;
  if (line !== undefined) {
    if (typeof input.column === "number") return { line, column: input.column };
    const lineText = new TextLines(text).line(line - 1);
    const name = typeof input.symbol === "string" ? input.symbol : String(input.query ?? "");
    const column = findSymbolColumn(lineText, name);
    return column === undefined ? undefined : { line, column };
  }
  if (typeof input.query !== "string") return undefined;
  const syntax = await analyzeSyntax(language, text, { ...runOptions(context), file: rel });
  const found = findSymbol(syntax.symbols, input.query);
  return found && { line: found.line, column: found.column };
}

/** A rename's new name must be a name where the old one stands (INVALID_INPUT otherwise). */
async function checkRename(context: ActionContext, input: Record<string, unknown>) {
  if (typeof input.file !== "string" || typeof input.new_name !== "string") return;
  const named = syntaxLanguageOf(input.file);
  if (named && plainName(named, input.new_name)) return;
  let problem: string | undefined;
  try {
    const path = await resolveFile(context, input.file);
    const language = syntaxLanguageOf(path);
    if (!language) return;
    const text = await context.workspace.readText(path, { maxBytes: MAX_SYNTAX_BYTES });
    const rel = context.workspace.relative(path);
    const at = await positionOf(context, rel, language, text, input);
    if (!at) return;
    problem = await checkNewName(language, text, at, input.new_name, {
      ...runOptions(context),
      file: rel,
    });
  } catch {
    // Bad paths and positions are the action's to report; a parser that cannot run, no check.
    return;
  }
  if (problem) {
    throw new LspGateError("INVALID_INPUT", `new_name ${problem}`, { new_name: input.new_name });
  }
}

async function syntaxOf(
  context: ActionContext,
  file: string,
  error: unknown,
  { outline, text: proposed }: { outline: boolean; text?: string },
): Promise<{ rel: string; why: NoServer; syntax: FileSyntax }> {
  const path = await resolveFile(context, file).catch(() => {
    throw error;
  });
  const language = syntaxLanguageOf(path);
  const why = language && await whyNoServer(context, path, error);
  if (!language || !why) throw error;
  let text: string;
  try {
    text = proposed ?? await context.workspace.readText(path, { maxBytes: MAX_SYNTAX_BYTES });
  } catch {
    throw error;
  }
  const rel = context.workspace.relative(path);
  try {
    return {
      rel,
      why,
      // A parse that runs out of time is TIMEOUT (from the pool), not "no server" again.
      syntax: await analyzeSyntax(language, text, { ...runOptions(context), file: rel, outline }),
    };
  } catch (failure) {
    if (!(failure instanceof SyntaxUnavailable)) throw failure;
    console.error(`lspgate: no syntax answer for ${file}: ${failure.message}`);
    throw error;
  }
}

function syntaxNote(
  language: SyntaxLanguage,
  why: NoServer,
  what: "outline" | "parse errors",
  file?: string,
): string {
  const reason = why.reason.replace(/\.$/, "");
  const full = what === "outline"
    ? "the full answer"
    : "type errors and other semantic problems too";
  return `\n\nSyntax only${file ? ` for ${file}` : ""}: ${
    what === "outline" ? "this outline" : "only parse errors, which"
  } came from lspgate's ${languageName(language)} parser, because no language server could run: ` +
    `${reason}.${why.server ? ` ${why.server} would give ${full}.` : ""}`;
}

/** A syntax job's deadline and cancel signal: the request's. */
function runOptions(
  context?: Pick<ActionContext, "signal" | "timeoutMs">,
): { timeoutMs?: number; signal?: AbortSignal } {
  return context ? { timeoutMs: context.timeoutMs, signal: context.signal } : {};
}

function extensionOf(path: string): string {
  const name = path.split("/").pop() ?? path;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : name;
}
