// Answers when no language server can run for a file (no adapter for its type, the binary
// missing, no Deno permission to run it, or servers turned off): the outline and the parse
// errors come from lspgate's WebAssembly parsers, and say so; actions that need a server still
// fail, naming the server that would answer and where the asked-for symbol is (syntax_explain.ts).
import { type ErrorCode, LspGateError } from "../errors.ts";
import { boundList, boundText, plural } from "../format/bound.ts";
import { pickAdapter } from "../servers/pick.ts";
import {
  analyzeSyntax,
  type FileSyntax,
  findSymbol,
  languageName,
  type SyntaxLanguage,
  syntaxLanguageOf,
  SyntaxUnavailable,
} from "../syntax/mod.ts";
import type { DiagnosticView, FileDiagnostics } from "./diagnostics.ts";
import { resolveFile } from "./document.ts";
import type { SymbolView } from "./symbols.ts";
import type { ActionContext, ActionResult } from "./types.ts";

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
export const MAX_SYNTAX_BYTES = 8 * 1024 * 1024;

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

/** True for the errors that mean no server can run (see whyNoServer). */
export function isNoServerError(error: unknown): error is LspGateError {
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
 * Where `query` (a symbol name, or dotted) is, by the syntax tree of `text`; within `context`'s
 * timeout and cancel signal when given (TIMEOUT, CANCELLED).
 */
export async function positionFromTree(
  file: string,
  text: string,
  query: string,
  context?: Pick<ActionContext, "signal" | "timeoutMs" | "ending">,
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
  const rel = context.workspace.relative(path);
  // Said as it is: no server runs, and the parser could not answer either (a helper's find: both
  // were "No language server handles .py files. Known: … pyright (.py .pyi)").
  const neither = (cause: string) =>
    new LspGateError(
      (error as LspGateError).code,
      `${why.reason.replace(/\.$/, "")}, and lspgate's parser could not read ${rel}: ${cause}`,
      { ...(error as LspGateError).data, file: rel },
    );
  let text: string;
  try {
    text = proposed ?? await context.workspace.readText(path, { maxBytes: MAX_SYNTAX_BYTES });
  } catch (failure) {
    if (failure instanceof LspGateError && failure.code === "INVALID_INPUT") {
      throw neither(failure.message);
    }
    throw error;
  }
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
    throw neither(failure.message);
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

/** A syntax job's deadline, cancel signal and end of input: the request's. */
export function runOptions(
  context?: Pick<ActionContext, "signal" | "timeoutMs" | "ending">,
): { timeoutMs?: number; signal?: AbortSignal; ending?: AbortSignal } {
  return context
    ? { timeoutMs: context.timeoutMs, signal: context.signal, ending: context.ending }
    : {};
}

function extensionOf(path: string): string {
  const name = path.split("/").pop() ?? path;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : name;
}
