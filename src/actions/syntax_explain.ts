// Actions that need a server, when none can run: their failure explained from the syntax tree
// (withSyntax), and a rename's new name checked against the file's grammar first.
import { LspGateError } from "../errors.ts";
import { findSymbolColumn } from "../lsp/symbol_columns.ts";
import { TextLines } from "../lsp/text_lines.ts";
import type { WorkspacePath } from "../permissions/workspace.ts";
import {
  analyzeSyntax,
  checkNewName,
  findSymbol,
  languageName,
  type SyntaxLanguage,
  syntaxLanguageOf,
} from "../syntax/mod.ts";
import { resolveFile } from "./document.ts";
import { plainName } from "./plain_name.ts";
import { isNoServerError, MAX_SYNTAX_BYTES, runOptions, whyNoServer } from "./syntax_only.ts";
import type { ActionContext, ActionDef } from "./types.ts";

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
